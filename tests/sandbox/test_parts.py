"""The sandbox's parts: output capture, copy-out, job validation, backend choice, cgroups, CLI."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wmrl_envs import cli
from wmrl_envs.sandbox import Job, Limits, hidden, make_executor
from wmrl_envs.sandbox.bwrap import HOST_COUNTERS, bwrap_args
from wmrl_envs.sandbox.capture import HeadTail
from wmrl_envs.sandbox.cgroups import RunCgroup, hierarchies
from wmrl_envs.sandbox.program import interpreter_roots
from wmrl_envs.sandbox.workspace import RunDir

from .conftest import SMALL, bwrap_or_skip


@given(st.lists(st.binary(max_size=300), max_size=40), st.integers(1, 200))
def test_head_tail_keeps_exact_head_and_tail(chunks, limit):
    buf = HeadTail(limit)
    for c in chunks:
        buf.feed(c)
    stream = b"".join(chunks)
    head, tail = limit - limit // 2, limit // 2
    assert buf.total == len(stream)
    assert buf.truncated == (len(stream) > limit)
    if not buf.truncated:
        assert buf.text() == stream.decode("utf-8", "replace")
    else:
        kept_tail = b"".join(buf.tail)[-tail:] if tail else b""
        assert bytes(buf.head) == stream[:head] and kept_tail == stream[len(stream) - tail :]
        assert f"[... {len(stream) - head - tail} bytes truncated ...]" in buf.text()


@pytest.fixture
def rundir(tmp_path):
    rd = RunDir(Job(code="pass"), base=tmp_path)
    yield rd
    rd.remove()


def test_collect_refuses_links_and_oversized_files(rundir, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host only")
    ws = rundir.workspace
    (ws / "ok.csv").write_text("id\n1\n")
    (ws / "link.csv").symlink_to(secret)
    (ws / "dirlink").symlink_to(tmp_path, target_is_directory=True)
    (ws / "big.csv").write_bytes(b"x" * 101)
    os.mkfifo(ws / "fifo.csv")  # must not block the harness
    names = ("ok.csv", "link.csv", "dirlink/host-secret.txt", "big.csv", "fifo.csv", "missing.csv")
    files, refused = rundir.collect(names, max_bytes=100)
    assert files == {"ok.csv": b"id\n1\n"}
    assert set(refused) == {"link.csv", "dirlink/host-secret.txt", "big.csv", "fifo.csv"}
    assert refused["big.csv"] == "101 bytes, over the limit of 100" and refused["fifo.csv"] == "not a regular file"


def test_collect_checks_st_size_before_reading_a_sparse_file(rundir):
    with open(rundir.workspace / "sparse.csv", "wb") as f:
        f.truncate(500 << 20)  # 500 MB, no blocks
    files, refused = rundir.collect(("sparse.csv",), max_bytes=1 << 20)
    assert files == {} and refused == {"sparse.csv": f"{500 << 20} bytes, over the limit of {1 << 20}"}


def test_collect_refuses_a_sparse_file_under_the_size_limit(rundir):
    """The eighth red team: a 512 MB file of holes under a 16 MB workspace cost the harness 512 MB of
    memory that no run was charged for; a written file of the same size is collected."""
    with open(rundir.workspace / "sparse.csv", "wb") as f:
        f.truncate(8 << 20)
    (rundir.workspace / "full.csv").write_bytes(b"x" * (8 << 20))
    files, refused = rundir.collect(("sparse.csv", "full.csv"), max_bytes=16 << 20)
    assert list(files) == ["full.csv"] and refused == {"sparse.csv": f"a sparse file: {8 << 20} bytes, 0 of them written"}


def test_workspace_usage_counts_blocks(rundir):
    before = rundir.usage_bytes()
    (rundir.workspace / "f.bin").write_bytes(os.urandom(1 << 20))
    assert rundir.usage_bytes() - before >= 1 << 20


def test_remove_copes_with_locked_directories(tmp_path):
    rd = RunDir(Job(code="pass"), base=tmp_path)
    locked = rd.workspace / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "f").write_text("x")
    os.chmod(locked / "inner", 0)
    os.chmod(locked, 0)
    rd.remove()
    assert not rd.root.exists()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "exactly one of code="),
        ({"code": "pass", "argv": ("python",)}, "exactly one of code="),
        ({"code": b"pass"}, "must be a str"),
        ({"argv": "python x.py"}, "sequence of strings"),
        ({"code": "pass", "collect": ("../escape.csv",)}, "relative path"),
        ({"code": "pass", "collect": ("/etc/passwd",)}, "relative path"),
        ({"code": "pass", "data_dir": "/no/such/dir"}, "not a directory"),
    ],
)
def test_job_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Job(**kwargs)


def test_limits_reject_non_positive():
    with pytest.raises(ValueError, match="memory_mb"):
        Limits(memory_mb=0)


def test_make_executor_refuses_unknown_and_unsafe():
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("chroot")
    with pytest.raises(ValueError, match="allow_unsafe=True"):
        make_executor("local")
    assert make_executor("local", allow_unsafe=True).isolation == "none"


def test_auto_picks_warm_here():
    bwrap_or_skip()
    assert make_executor("auto").name == "warm"


def test_interpreter_roots_cover_the_venv_without_usr():
    roots = interpreter_roots()
    for p in (sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)):
        resolved = Path(p).resolve()
        assert resolved.is_relative_to("/usr") or any(resolved.is_relative_to(r) for r in roots)
    assert not any(r.is_relative_to("/usr") for r in roots)
    assert not any(a != b and a.is_relative_to(b) for a in roots for b in roots)


def test_bwrap_args_mount_order(rundir, tmp_path):
    prefix = Path(sys.prefix)
    a = bwrap_args(rundir, [(tmp_path, prefix)], tmp_path, [], info_fd=7, seccomp_fd=8)
    assert a.index("/tmp") < a.index(str(prefix)) < a.index("/workspace") < a.index("/workspace/data")
    assert a[a.index(str(prefix)) - 2 : a.index(str(prefix)) + 1] == ["--ro-bind", str(tmp_path), str(prefix)]
    remounts = [a[i + 1] for i, x in enumerate(a) if x == "--remount-ro"]
    # host-wide counters behind empty read-only folders; /dev's own tmpfs has no size limit: read-only
    assert remounts == [*HOST_COUNTERS, "/dev", "/"]
    dev = next(i for i, x in enumerate(a) if x == "--remount-ro" and a[i + 1] == "/dev")
    assert (a.index("/dev/shm") < dev
            and len(a) - a[::-1].index("--remount-ro") > a.index("/workspace/data"))
    for flag in ("--unshare-all", "--disable-userns", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in a
    assert a[a.index("--info-fd") + 1] == "7" and a[a.index("--block-fd") + 1] == "0"
    assert a[a.index("--seccomp") + 1] == "8"


@pytest.mark.parametrize("tasks", [None, 777])
def test_cgroup_limits_are_written_and_read_back(tasks):
    if not hierarchies():
        pytest.skip("no writable cgroup hierarchy on this machine")
    cg = RunCgroup.create(SMALL, tasks)
    try:
        for h, d in cg.dirs.items():
            if "memory" in h.controllers:
                f = "memory.max" if h.version == 2 else "memory.limit_in_bytes"
                assert int((d / f).read_text()) == SMALL.memory_mb << 20
            if "pids" in h.controllers:  # the program's processes, or a backend's own cap (gVisor's Sentry)
                assert (d / "pids.max").read_text().strip() == str(tasks or SMALL.max_procs)
        assert cg.pids() == [] and cg.cpu_s() == 0
    finally:
        cg.remove()
    assert not any(d.exists() for d in cg.dirs.values())


def test_cli_runs_a_file_and_prints_json(tmp_path, capsys):
    bwrap_or_skip()
    prog = tmp_path / "prog.py"
    prog.write_text("import os\nprint(sorted(os.listdir('data')))\nopen('submission.csv', 'w').write('id\\n')\n")
    data = tmp_path / "public"
    data.mkdir()
    (data / "train.csv").write_text("a\n")
    rc = cli.main(["sandbox", str(prog), "--data", str(data), "--time-limit", "20", "--memory-mb", "512", "--with-files"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["exit_code"] == 0 and out["backend"] == "warm"  # auto's first choice
    assert out["stdout"] == "['train.csv']\n" and out["files"] == {"submission.csv": "id\n"}


def test_cli_reports_a_failing_program(tmp_path, capsys):
    bwrap_or_skip()
    prog = tmp_path / "prog.py"
    prog.write_text("raise SystemExit(3)\n")
    assert cli.main(["sandbox", str(prog), "--time-limit", "20"]) == 1
    assert json.loads(capsys.readouterr().out)["exit_code"] == 3


def test_spawning_returns_the_harness_threads_to_their_groups():
    """Runs start in their groups via the spawning thread; the thread must come back home."""
    bwrap_or_skip()
    if not hierarchies():
        pytest.skip("no writable cgroup hierarchy on this machine")

    def groups() -> str:
        return Path("/proc/thread-self/cgroup").read_text()

    before_main = groups()
    ex = make_executor("bwrap", limits=SMALL, workers=2)
    seen = []
    jobs = [Job(code="import os; print(open('/proc/self/cgroup').read())") for _ in range(4)]
    for r in ex.map(jobs):
        assert r.ok and r.peak_mem_bytes and r.peak_mem_source.startswith("cgroup")
        seen.append(r.cpu_s)
    ex.run(jobs[0])
    assert groups() == before_main
    assert all(c is not None and c > 0 for c in seen)


DATA_PROBE = """
import json, os, sklearn.datasets, statsmodels.api
files = [f for d in DIRS for _, _, fs in os.walk(d) for f in fs]
data = [f for f in files if not f.endswith((".py", ".pyc", ".so", ".pyi"))]
print(json.dumps({"data": data, "code": len(files), "extra": os.listdir(EXTRA)}))
sklearn.datasets.load_iris()
"""


def test_dataset_packages_import_but_their_data_is_gone(backend):
    """The offline tasks come from datasets shipped in the venv: inside, only their code is left
    (warm too, whose zygote imported sklearn from the host's view)."""
    import pandas

    dirs = [str(d) for d in hidden.dataset_dirs()]
    assert any(d.endswith("sklearn/datasets") for d in dirs) and any("statsmodels" in d for d in dirs)
    extra = Path(pandas.__file__).parent / "tests"  # a user-named path: hidden whole
    code = f"DIRS = {dirs!r}\nEXTRA = {str(extra)!r}\n" + DATA_PROBE
    r = make_executor(backend, limits=replace(SMALL, wall_s=60, cpu_s=30), hide=[extra]).run(Job(code=code))
    out = json.loads(r.stdout)
    assert out["data"] == [] and out["code"] > 50 and out["extra"] == []
    assert "FileNotFoundError" in r.stderr and "iris" in r.stderr  # the loader finds no file


@pytest.mark.parametrize("name", ["bwrap", "warm", "local"])
def test_failed_confinement_never_runs_the_program(name, monkeypatch):
    if name != "local":
        bwrap_or_skip()
    from wmrl_envs.sandbox import supervise

    def refuse(*_):
        raise PermissionError("cgroup write refused")

    monkeypatch.setattr(supervise, "_confine", refuse)
    ex = make_executor(name, limits=SMALL, allow_unsafe=True)
    r = ex.run(Job(code="open('submission.csv', 'w').write('ran')"))
    assert r.files == {} and not r.ok
    assert "cgroup write refused" in r.error


def test_a_killed_process_is_dying_not_a_leftover():
    import signal
    import subprocess
    import time

    from wmrl_envs.sandbox import procfs

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = procfs.read(child.pid)
        assert live is not None and not procfs.dying(live)
        os.kill(child.pid, signal.SIGKILL)
        for _ in range(200):  # killed, not reaped: a zombie, then gone
            p = procfs.read(child.pid)
            if p is None or procfs.dying(p):
                break
            time.sleep(0.01)
        assert p is None or procfs.dying(p)
    finally:
        child.kill()
        child.wait()
    assert procfs.read(child.pid) is None


def test_a_slot_held_by_another_process_is_never_handed_out(tmp_path, monkeypatch):
    """identity.lease's slots are exclusive across harness processes (each run in flight its own
    host user): a slot a second process holds is skipped, and free again once that process is gone."""
    import subprocess

    from wmrl_envs.sandbox import identity

    folder = tmp_path / "slots"
    monkeypatch.setattr(identity, "SLOT_LOCKS", folder)
    holder = ("import sys, time; from pathlib import Path; from wmrl_envs.sandbox import identity; "
              "identity.SLOT_LOCKS = Path(sys.argv[1]); fd, n = identity._take_slot(); print(n, flush=True); "
              "sys.stdin.read()")
    child = subprocess.Popen([sys.executable, "-c", holder, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        held = int(child.stdout.readline())  # type: ignore[union-attr]
        mine, n = identity._take_slot()
        assert (held, n) == (0, 1)  # the first free slot, not the other process's
        os.close(mine)
    finally:
        child.communicate("")
    fd, n = identity._take_slot()
    os.close(fd)
    assert n == 0  # released with the process that held it
