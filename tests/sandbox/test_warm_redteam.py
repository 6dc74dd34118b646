"""Outside red team of the warm (zygote) backend, written without reading the sandbox's code.

The warm backend runs each program as a copy of a pre-initialised zygote (numpy, pandas, scipy,
scikit-learn imported) inside the run's bubblewrap namespaces. These attacks are aimed at what that
adds: state carried from the zygote or between runs, randomness that is the same in every copy,
the zygote and the harness as targets, the privileges the copy ends up with, and programs whose
outcome could differ from a cold run. Where a property should hold for any sandbox the test runs
against both ``bwrap`` and ``warm``; a run must report the backend it was asked for (a warm
executor that silently fell back to cold would make the warm tests vacuous).

The attack programs are in ``warm_redteam_programs.py``. Data folders are made under /dev/shm
(traversable by the sandbox user), secrets the harness holds are set before any zygote starts (at
import of this module, i.e. at collection time).
"""

from __future__ import annotations

import os
import platform
import shutil
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from wmrl_envs.sandbox import Job, Limits, RunResult, make_executor
from wmrl_envs.sandbox.warm import zygote_cpu

from . import warm_redteam_programs as P
from .conftest import bwrap_or_skip, host_procs_with

# Secrets the harness process holds: one in its environment (set before any zygote is started,
# which happens at the first warm run, after collection) and one only in its memory.
HARNESS_SECRET = f"wmrl-harness-env-{uuid.uuid4().hex}"
os.environ["WMRL_REDTEAM_HARNESS_SECRET"] = HARNESS_SECRET
PYVAR_SECRET = f"wmrl-harness-var-{uuid.uuid4().hex}"
_HELD_BY_HARNESS = [PYVAR_SECRET * 4, PYVAR_SECRET.encode()]

# output_bytes: the state checkers print one JSON line of every module and path, longer where the
# venv lives at a longer path (a CI clone under /tmp/tmp.XXXXXXXXXX)
LIMITS = Limits(wall_s=20, cpu_s=10, memory_mb=1024, max_procs=64, file_mb=64, workspace_mb=128,
                output_bytes=4 << 20)
BACKENDS = ("bwrap", "warm")
PROJECT = Path(__file__).resolve().parents[2]
OUTCOME_FIELDS = (
    "exit_code",
    "term_signal",
    "timed_out",
    "cpu_limit_hit",
    "oom_killed",
    "fsize_limit_hit",
    "stdout_truncated",
    "leftover_procs",
)


def _tok(kind: str) -> str:
    return f"wmrl{kind}{uuid.uuid4().hex[:16]}"


def _shm_dir(prefix: str = "wmrl-redteam-") -> Path:
    path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix=prefix))
    os.chmod(path, 0o755)
    return path


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


@pytest.fixture(scope="module")
def task():
    """``public/`` (mounted as data/) and a world-readable ``private/labels-*.csv`` beside it."""
    root = _shm_dir()
    public, private = root / "public", root / "private"
    public.mkdir()
    private.mkdir()
    os.chmod(public, 0o755)
    os.chmod(private, 0o755)
    label_token = _tok("label")
    _write(public / "train.csv", "id,x,y\n1,0.5,0\n2,1.5,1\n")
    labels = _write(private / f"labels-{label_token[-10:]}.csv", f"id,y\n1,{label_token}\n")
    yield SimpleNamespace(root=root, public=public, labels=labels, label_token=label_token)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def executors(task):
    """One executor per backend for the whole module (workers=2 for ``map``), made on first use."""
    bwrap_or_skip()
    made: dict = {}
    state = SimpleNamespace(zygotes_at_start=None)

    def get(name: str):
        if name not in made:
            made[name] = make_executor(name, limits=LIMITS, workers=2)
            if name == "warm":
                warmup = made[name].run(Job(code="print('warm')", data_dir=task.public))
                assert warmup.backend == "warm", f"warm fell back: {warmup.error} {warmup.stderr}"
                state.zygotes_at_start = zygote_cpu()["zygotes"]
        return made[name]

    get.state = state
    yield get
    for ex in made.values():
        close = getattr(ex, "close", None)
        if close:
            close()
    os.environ.pop("WMRL_REDTEAM_HARNESS_SECRET", None)


def _check_backend(result: RunResult, backend: str) -> RunResult:
    assert result.backend == backend, (
        f"asked for {backend}, ran on {result.backend}: {result.error}"
    )
    return result


def run(executors, backend: str, code: str, data_dir, **job) -> RunResult:
    return _check_backend(executors(backend).run(Job(code=code, data_dir=data_dir, **job)), backend)


def run_many(executors, backend: str, jobs: list[Job]) -> list[RunResult]:
    return [_check_backend(r, backend) for r in executors(backend).map(jobs)]


def ok(result: RunResult) -> dict:
    assert result.exit_code == 0 and not result.timed_out, (
        f"exit {result.exit_code} timed_out={result.timed_out}\n{result.stderr[-3000:]}"
    )
    return P.results_of(result.stdout)


def _ready_end(result: RunResult) -> tuple[float, float]:
    """The times a holding program printed when it was ready and when it stopped holding."""
    lines = [
        P.results_of(line) for line in result.stdout.splitlines() if line.startswith("RESULT ")
    ]
    ready = next((d["ready"] for d in lines if d.get("ready")), None)
    end = next((d["end"] for d in lines if d.get("end")), None)
    assert ready and end, f"did not run through: {result.stdout[-500:]} {result.stderr[-3000:]}"
    return ready, end


def _needle_spec(**secrets: str) -> dict:
    return {name: P.halves(value) for name, value in secrets.items()}


def _nonzero_hits(scan: dict) -> dict:
    """``{where: {needle: n}}`` for every needle found at least once (errors are not hits)."""
    found = {}
    for where, hits in scan.items():
        if "error" in hits:
            continue
        bad = {k: v for k, v in hits.items() if v}
        if bad:
            found[where] = bad
    return found


# ============================================================================================
# 1. what the program is: identity, privileges, environment, descriptors


def test_program_holds_no_capabilities(executors, task, backend):
    """uid 65534 with every capability set empty, no_new_privs and a seccomp filter."""
    view = ok(run(executors, backend, P.VIEW, task.public))
    assert (view["uid"], view["gid"], view["euid"], view["egid"]) == (65534,) * 4
    assert view["groups"] == []
    assert view["NoNewPrivs"] == "1" and view["Seccomp"] == "2"
    held = {k: v for k, v in view["caps"].items() if int(v, 16) != 0}
    assert held == {}, f"{backend}: the program holds capabilities {held}"


def test_program_cannot_make_namespaces_or_chroot(executors, task, backend):
    """unshare(2) of any namespace and chroot(2) need capabilities the program must not have."""
    res = ok(run(executors, backend, P.NAMESPACES, task.public))
    allowed = {name: rc for name, rc in res.items() if not (isinstance(rc, list) and rc[0] == -1)}
    assert allowed == {}, f"{backend}: succeeded: {allowed} (all: {res})"


def test_no_netfilter_or_packet_sockets_in_own_netns(executors, task, backend):
    """No CAP_NET_ADMIN/CAP_NET_RAW anywhere: nf_tables, AF_PACKET and raw sockets stay closed.

    These are the kernel's most exploited unprivileged-user-namespace surfaces; bwrap's
    --disable-userns and the seccomp filter exist to keep them out of reach."""
    res = ok(run(executors, backend, P.NETADMIN, task.public))
    escalated = {
        k: res[k]
        for k in ("lo_up", "packet_socket", "raw_socket", "nft_table_created")
        if res[k] is True
    }
    assert escalated == {}, f"{backend}: {escalated}; full: {res}"


def test_view_matches_cold(executors, task):
    """Everything a program can observe about its process is the same under warm as under bwrap."""
    cold = ok(run(executors, "bwrap", P.VIEW, task.public))
    warm = ok(run(executors, "warm", P.VIEW, task.public))
    keys = (
        "uid",
        "gid",
        "groups",
        "NoNewPrivs",
        "Seccomp",
        "SigIgn",
        "SigBlk",
        "Umask",
        "cwd",
        "hostname",
        "limits",
        "argv",
        "file",
        "name",
        "path",
        "stdin_is_none",
        "flags",
    )
    diff = {k: (cold[k], warm[k]) for k in keys if cold[k] != warm[k]}
    assert diff == {}, f"cold vs warm: {diff}"


def test_command_line_matches_cold(executors, task):
    """/proc/self/cmdline and sys.orig_argv name the interpreter and the program, nothing of the harness."""
    cold = ok(run(executors, "bwrap", P.VIEW, task.public))
    warm = ok(run(executors, "warm", P.VIEW, task.public))
    assert warm["cmdline"] == cold["cmdline"], f"warm shows {warm['cmdline']!r}"
    assert warm["orig_argv"] == cold["orig_argv"]


def test_only_stdio_descriptors(executors, task, backend):
    """No descriptor of the harness, the zygote, its socket or the run's namespaces is inherited."""
    fds = ok(run(executors, backend, P.FDS, task.public))
    assert set(fds) <= {"0", "1", "2"}, f"{backend}: extra descriptors {fds}"
    for fd in ("1", "2"):
        assert fds[fd][0].startswith("p"), fds
    if "0" in fds:
        assert fds["0"][1] == "/dev/null", fds


def test_no_harness_environment(executors, task, backend):
    """The harness's environment reaches neither the program's environ nor any visible process."""
    res = run(executors, backend, P.ENVIRON, task.public)
    seen = ok(res)
    assert HARNESS_SECRET not in res.stdout
    assert "WMRL_REDTEAM" not in res.stdout
    assert "WMRL_REDTEAM_HARNESS_SECRET" not in seen["os.environ"]


def test_environment_matches_cold(executors, task):
    cold = ok(run(executors, "bwrap", P.ENVIRON, task.public))["os.environ"]
    warm = ok(run(executors, "warm", P.ENVIRON, task.public))["os.environ"]
    cold.pop("PWD", None), warm.pop("PWD", None)
    assert warm == cold


def test_private_labels_unreachable(executors, task, backend):
    """Host path, ../private, /proc/<pid>/root, a chroot escape, and a walk of the visible tree."""
    code = P.fill(
        P.LABELS,
        TOKEN=task.label_token,
        HOST_PRIVATE=str(task.labels),
        HOST_PUBLIC=str(task.public / "train.csv"),
        INTERPRETER=tuple({sys.prefix, sys.base_prefix, os.path.realpath(sys.base_prefix)}),
    )
    res = ok(run(executors, backend, code, task.public))
    assert res["found"] == [], f"{backend}: labels reached at {res['found']}"
    assert res["walked"] > 10  # the walk ran
    assert task.label_token not in str(res["tried"])


def test_no_harness_code_in_memory(executors, task, backend):
    """The project's packages are masked from programs: no function of wmrl_envs or wmrl_agents
    (the zygote's own code included) may be reachable in the program's interpreter."""
    roots = (str(PROJECT / "wmrl_envs"), str(PROJECT / "wmrl_agents"))
    res = ok(run(executors, backend, P.fill(P.HARNESS_CODE, ROOTS=roots), task.public))
    assert res == {"code": [], "modules": [], "importer_cache": []}, f"{backend}: {res}"


# ============================================================================================
# 2. memory: harness secrets, previous runs, concurrent runs


def test_memory_scan_finds_what_the_run_holds(executors, task, backend):
    """The scanner is not blind: a needle the program itself assembles is found."""
    needle = _tok("self")
    h1, h2 = P.halves(needle)
    code = f"HELD = [({h1!r} + {h2!r}) * 50]\n" + P.fill(
        P.SCAN_SELF, NEEDLES=_needle_spec(held=needle, control=_tok("control")), DELAY=0
    )
    res = ok(run(executors, backend, code, task.public))
    assert res["scan"]["self"]["held"] >= 1 and res["scan"]["self"]["control"] == 0, res


def test_harness_secrets_not_in_memory(executors, task, backend):
    """Scan every readable byte of the program and of each process it sees."""
    needles = _needle_spec(
        env=HARNESS_SECRET, var=PYVAR_SECRET, label=task.label_token, control=_tok("control")
    )
    res = ok(run(executors, backend, P.fill(P.SCAN_SELF, NEEDLES=needles, DELAY=0), task.public))
    assert "self" in res["scan"] and "error" not in res["scan"]["self"]
    assert _nonzero_hits(res["scan"]) == {}, f"{backend}: {res['scan']}"


def test_previous_run_data_not_in_memory(executors, task, backend):
    """A run reads data, holds it in numpy/pandas/bytes, writes it to files; the next run finds
    none of it, nor the previous job's name or its data folder's path."""
    held, content, name, path_tok = _tok("held"), _tok("content"), _tok("name"), _tok("path")
    data = _shm_dir(prefix=f"{path_tok}-")
    try:
        _write(data / "train.csv", f"id,secret\n1,{content}\n")
        first = run(
            executors, backend, P.fill(P.HOLDER, TOKEN=held, HOLD=0), data, name=f"job-{name}"
        )
        assert ok(first)["data"] > 0
        needles = _needle_spec(
            held=held, content=content, name=name, path=path_tok, control=_tok("control")
        )
        res = ok(
            run(executors, backend, P.fill(P.SCAN_SELF, NEEDLES=needles, DELAY=0), task.public)
        )
    finally:
        shutil.rmtree(data, ignore_errors=True)
    assert _nonzero_hits(res["scan"]) == {}, f"{backend}: {res['scan']}"


def test_concurrent_run_data_not_in_memory(executors, task, backend):
    held = _tok("conc")
    needles = _needle_spec(held=held, control=_tok("control"))
    holder, scanner = run_many(
        executors,
        backend,
        [
            Job(code=P.fill(P.HOLDER, TOKEN=held, HOLD=6), data_dir=task.public, name="holder"),
            Job(
                code=P.fill(P.SCAN_SELF, NEEDLES=needles, DELAY=2.5),
                data_dir=task.public,
                name="scanner",
            ),
        ],
    )
    ok(holder)
    ready, end = _ready_end(holder)
    s = ok(scanner)
    assert ready < s["t0"] and s["t1"] < end, "the two runs did not overlap: inconclusive"
    assert _nonzero_hits(s["scan"]) == {}, f"{backend}: {s['scan']}"


# ============================================================================================
# 3. state carried between runs, sequential and concurrent

_BASELINES: dict = {}


def _state_check(tok: str, key: int, ipc_name: str, port: int, delay: float, needles: dict) -> str:
    return P.fill(
        P.STATE_CHECK, KEY=key, TOKEN_NAME=ipc_name, PORT=port, DELAY=delay, NEEDLES=needles
    )


def _mutator(tok: str, key: int, ipc_name: str, port: int, hold: float) -> str:
    return P.fill(P.MUTATOR, TOKEN=tok, KEY=key, TOKEN_NAME=ipc_name, PORT=port, HOLD=hold)


def _attack_ids():
    tok = _tok("mut")
    return (
        tok,
        int(tok[-7:], 16) or 1,
        f"wmrl-ipc-{uuid.uuid4().hex[:8]}",
        40000 + int(tok[-3:], 16) % 20000,
    )


def _baseline(executors, task, backend) -> dict:
    """The state checker's view of a fresh run (nothing mutated before it)."""
    if backend not in _BASELINES:
        tok, key, ipc, port = _attack_ids()
        code = _state_check(tok, key, ipc, port, 0, _needle_spec(control=_tok("control")))
        res = ok(run(executors, backend, code, task.public))
        assert _nonzero_hits(res["leaks"]) == {}
        _BASELINES[backend] = res["state"]
    return _BASELINES[backend]


def _state_diff(before: dict, after: dict) -> dict:
    return {
        k: (before.get(k), after.get(k))
        for k in set(before) | set(after)
        if before.get(k) != after.get(k)
    }


def test_state_checker_sees_mutations_of_its_own_process(executors, task):
    """The checker is not blind: run in the mutator's own process, it reports the mutations."""
    before = _baseline(executors, task, "warm")
    tok, key, ipc, port = _attack_ids()
    needles = _needle_spec(token=tok, control=_tok("control"))
    glue = (
        "\nimport builtins as _b, warnings as _w\n_b.print = _PRINT\n_w.resetwarnings()\n"
        "signal.alarm(0)\n"
    )
    code = (
        "import builtins as _b\n_PRINT = _b.print\n"
        + _mutator(tok, key, ipc, port, 0)
        + glue
        + _state_check(tok, key, ipc, port, 0, needles)
    )
    res = ok(run(executors, "warm", code, task.public))
    unseen = set(before) - set(_state_diff(before, res["state"]))
    # tcp_*: the mutator cannot plant a TCP listener at all (only AF_UNIX sockets exist, seccomp.py),
    # nor a POSIX message queue (mq_open is refused)
    assert unseen <= {"print_is_builtin", "alarm_pending", "itimer", "int_256", "tcp_127", "tcp_listen",
                      "mq_open"}, unseen
    assert res["leaks"]["memory"]["token"] > 0 and res["leaks"]["memory"]["control"] == 0


def test_state_does_not_carry_to_next_run(executors, task, backend):
    """Monkeypatched libraries, module globals, sklearn/pandas/numpy config, RNG seeds, environ,
    sys.modules/path/meta_path, builtins, warnings, cwd, umask, signals, alarms, rlimits, threads,
    atexit, constants patched in place with ctypes, a .so page patched through /proc/self/mem,
    files in /tmp, /dev/shm, the workspace and HOME, SysV IPC, an mqueue, sockets and a detached
    grandchild: the next run sees the state of a fresh run."""
    before = _baseline(executors, task, backend)
    tok, key, ipc, port = _attack_ids()
    mut = run(executors, backend, _mutator(tok, key, ipc, port, 0), task.public)
    _ready_end(mut)
    assert mut.leftover_procs == 0
    assert host_procs_with(f"wmrl-rt-{tok}") == []
    needles = _needle_spec(token=tok, control=_tok("control"))
    after = run(executors, backend, _state_check(tok, key, ipc, port, 0, needles), task.public)
    res = ok(after)
    assert _state_diff(before, res["state"]) == {}, f"{backend}: state carried over"
    assert _nonzero_hits(res["leaks"]) == {}, f"{backend}: {res['leaks']}"
    assert after.files == {}, "the previous run's submission.csv was collected"


def test_state_not_shared_with_concurrent_run(executors, task, backend):
    before = _baseline(executors, task, backend)
    tok, key, ipc, port = _attack_ids()
    needles = _needle_spec(token=tok, control=_tok("control"))
    mut, chk = run_many(
        executors,
        backend,
        [
            Job(code=_mutator(tok, key, ipc, port, 8), data_dir=task.public, name="mutator"),
            Job(
                code=_state_check(tok, key, ipc, port, 4, needles),
                data_dir=task.public,
                name="checker",
            ),
        ],
    )
    ready, end = _ready_end(mut)
    res = ok(chk)
    assert ready < res["checked_at"] and res["done_at"] < end, "runs did not overlap: inconclusive"
    assert _state_diff(before, res["state"]) == {}, f"{backend}: concurrent state visible"
    assert _nonzero_hits(res["leaks"]) == {}, f"{backend}: {res['leaks']}"
    assert mut.leftover_procs == 0 and host_procs_with(f"wmrl-rt-{tok}") == []


def test_concurrent_outputs_not_crossed(executors, task, backend):
    """Eight runs at once: each result carries its own stdout, stderr and files only."""
    toks = [_tok("echo") for _ in range(8)]
    results = run_many(
        executors,
        backend,
        [
            Job(code=P.fill(P.ECHO, TOKEN=t), data_dir=task.public, name=f"echo{i}")
            for i, t in enumerate(toks)
        ],
    )
    for t, r in zip(toks, results):
        assert r.exit_code == 0, r.stderr
        assert set(r.stdout.split()) == {t}
        assert set(r.stderr.split()) == {f"err-{t}"}
        assert r.files == {"submission.csv": t.encode()}


# ============================================================================================
# 4. randomness: every run must draw differently, as a fresh process does


_RANDOMNESS: dict = {}


def _two_runs(executors, task, backend) -> tuple[dict, dict]:
    """Two fresh runs of one program drawing from every source (shared by the tests below)."""
    if backend not in _RANDOMNESS:
        _RANDOMNESS[backend] = [
            ok(run(executors, backend, P.RANDOMNESS, task.public)) for _ in range(2)
        ]
    return tuple(_RANDOMNESS[backend])


def test_unseeded_randomness_differs_between_runs(executors, task, backend):
    """random, numpy's global and new generators, os.urandom, secrets, uuid, tempfile names,
    OpenSSL, scipy.stats, sklearn and pandas defaults: different in every run."""
    a, b = (r["draws"] for r in _two_runs(executors, task, backend))
    same = {k: a[k] for k in a if a[k] == b.get(k)}
    assert same == {}, f"{backend}: identical in two runs: {same}"


def test_import_time_generators_differ_between_runs(executors, task, backend):
    """Generators libraries create (entropy-seeded) while being imported, e.g. the default
    ``rng=np.random.default_rng()`` argument of sklearn's TreeGrower, differ per fresh process."""
    a, b = (r["import_time"] for r in _two_runs(executors, task, backend))
    assert a.get("TreeGrower_default_rng"), a
    shared = {k: sorted(set(a[k]) & set(b.get(k, []))) for k in a}
    shared = {k: v for k, v in shared.items() if v}
    assert shared == {}, f"{backend}: same draws in two runs: {shared}"


def test_multiprocessing_authkey_differs_between_runs(executors, task, backend):
    """multiprocessing's HMAC key (os.urandom(32) at import) is per process in a fresh run."""
    a, b = (r["authkey"] for r in _two_runs(executors, task, backend))
    assert a != b, f"{backend}: every run has authkey {a}"


# ============================================================================================
# 5. reaching the zygote, the harness and other processes


def _zygote_pids() -> list[int]:
    """This harness's zygotes (not their copies inside sandboxes, nor another harness's on the same
    host, which come and go with it): the zygote runs its script from a descriptor (``python
    /proc/self/fd/NN``), in the host's pid namespace, as this process's child."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            status = Path(f"/proc/{name}/status").read_text()
        except OSError:
            continue
        nspid = next((ln.split()[1:] for ln in status.splitlines() if ln.startswith("NSpid:")), [])
        args = cmd.split(b"\0")
        ppid = next((int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("PPid:")), 0)
        if len(args) > 1 and args[1].startswith(b"/proc/self/fd/") and len(nspid) == 1 and ppid == os.getpid():
            pids.append(int(name))
    return pids


def test_cannot_reach_zygote_or_harness(executors, task, backend):
    """pid walking, signal-0 probing of 70k pids, pidfd_open/ptrace/process_vm_readv/kcmp on the
    zygote's and the harness's host pids, setns on pid 1's namespaces, pidfd_getfd on pid 1, and a
    kill(-1, SIGKILL): nothing outside the run is reached and the zygote lives on."""
    ok(run(executors, backend, P.NORMAL, task.public))  # this harness's zygote is up
    zygotes = _zygote_pids() if backend == "warm" else []
    if backend == "warm":
        assert zygotes, "no zygote found on the host"
    targets = zygotes + [os.getpid(), os.getppid()]
    before = zygote_cpu()["zygotes"]
    res = run(executors, backend, P.fill(P.REACH, TARGETS=targets), task.public)
    out = P.results_of(res.stdout)
    assert out, f"no result: {res.stderr[-3000:]}"
    assert set(out["signalable"]) <= set(out["proc_pids"]), out
    assert len(out["proc_pids"]) <= 4, f"{backend}: sees {out['proc_pids']}"
    for t, r in out["targets"].items():
        assert r["kill0"] == "ESRCH" and not r["proc_entry"], (t, r)
        for call in ("pidfd_open", "ptrace_attach", "process_vm_readv", "kcmp"):
            assert r[call][0] == -1, (t, call, r)
    for ns, rc in out["setns"].items():
        assert not (isinstance(rc, list) and rc[0] != -1), (ns, rc)
    for rc in out.get("pidfd_getfd_1", []):
        assert rc[0] == -1, out["pidfd_getfd_1"]
    assert res.leftover_procs == 0
    for z in zygotes:
        os.kill(z, 0)  # still alive
    assert zygote_cpu()["zygotes"] == before
    after = run(executors, backend, P.NORMAL, task.public)
    assert ok(after)["ok"]


def test_nested_pid_namespace_dies_with_run(executors, task, backend):
    """A detached, signal-immune child made init of a nested pid namespace (where the program can
    make one), and its grandchild: gone when the run ends."""
    tok = _tok("pidns")
    res = run(executors, backend, P.fill(P.NESTED_PIDNS, TOKEN=tok), task.public)
    ok(res)
    assert res.leftover_procs == 0
    deadline = time.time() + 3
    while host_procs_with(f"wmrl-rt-{tok}") and time.time() < deadline:
        time.sleep(0.1)
    left = host_procs_with(f"wmrl-rt-{tok}") + host_procs_with(f"wmrl-rt-init-{tok}")
    assert left == [], f"{backend}: processes outlived the run: {left}"


def test_seccomp_denials_same_as_cold(executors, task, backend):
    """The warm backend installs the filter itself: the same calls are refused, in the main thread,
    in a thread and in a forked child."""
    if platform.machine() != "x86_64":
        pytest.skip("syscall numbers are x86_64")
    res = ok(run(executors, backend, P.SECCOMP, task.public))
    wrong = {
        k: v for k, v in res["main"].items() if v != [-1, "ENOSYS" if k == "clone3" else "EPERM"]
    }
    assert wrong == {}, f"{backend}: not refused as expected: {wrong}"
    assert all(v == [-1, "EPERM"] for v in res["thread"].values()), res["thread"]
    assert res["child_all_eperm"]


def test_shared_layout_gives_no_access(executors, task, backend):
    """Warm runs share the zygote's address-space layout (documented). Knowing where a concurrent
    run keeps its data (the address it had in an identical earlier run) must not give access to it
    through /proc/<pid>/mem or process_vm_readv of any visible process."""
    probe = ok(
        run(executors, backend, P.fill(P.LAYOUT_HOLDER, TOKEN=_tok("lay"), HOLD=0), task.public)
    )
    secret = _tok("lay")
    holder, reader = run_many(
        executors,
        backend,
        [
            Job(code=P.fill(P.LAYOUT_HOLDER, TOKEN=secret, HOLD=4), data_dir=task.public),
            Job(
                code=P.fill(P.LAYOUT_READER, HALVES=P.halves(secret), ADDR=probe["addr"], DELAY=2),
                data_dir=task.public,
            ),
        ],
    )
    h, r = ok(holder), ok(reader)
    assert r["self_check"], "the reader cannot read its own memory: the test would be blind"
    assert h["ready"] < r["checked_at"], "the reader looked before the holder was ready"
    same_layout = h["addr"] == probe["addr"]
    assert not r["found"], f"{backend}: read a concurrent run's data (same layout: {same_layout})"


# ============================================================================================
# 6. outcomes: the same program ends the same way under warm as under cold


@pytest.mark.parametrize("case", sorted(P.OUTCOMES))
def test_outcome_same_as_cold(executors, task, case):
    code, overrides = P.OUTCOMES[case]
    limits = replace(LIMITS, **overrides)
    got = {}
    for backend in BACKENDS:
        r = run(executors, backend, code, task.public, limits=limits)
        got[backend] = r
        # a normal job right after, under the executor's own limits, still works
        normal = ok(run(executors, backend, P.NORMAL, task.public))
        assert normal["ok"] and normal["cpu"][0] == int(LIMITS.cpu_s), (backend, normal)
    cold, warm = got["bwrap"], got["warm"]
    fields = OUTCOME_FIELDS
    if cold.cpu_limit_hit and warm.cpu_limit_hit:
        # The CPU limit is met either way; which of its two enforcers fires first (the program's
        # RLIMIT_CPU: SIGXCPU, or the run's cgroup total 0.25 s past it: SIGKILL) depends on the
        # CPU the run spent outside the program, which under warm is the clone's fork.
        fields = tuple(f for f in fields if f not in ("exit_code", "term_signal"))
    diff = {
        f: (getattr(cold, f), getattr(warm, f))
        for f in fields
        if getattr(cold, f) != getattr(warm, f)
    }
    assert diff == {}, (
        f"{case}: cold vs warm {diff}\ncold stderr: {cold.stderr[-800:]}\n"
        f"warm stderr: {warm.stderr[-800:]}"
    )
    assert cold.files == warm.files
    assert cold.stdout == warm.stdout or case == "flood"
    if case in ("raise", "sys_exit_msg", "keyboard_interrupt"):
        assert cold.stderr == warm.stderr


def test_signalling_the_parent_is_the_documented_difference(executors, task):
    """Cold, the parent is the namespace's init (pid 1), which ignores the signal; warm, it is
    outside the namespace (``getppid() == 0``), so ``kill(0)`` ends only the program's own group."""
    cold = run(executors, "bwrap", P.SIGNAL_PARENT, task.public)
    warm = run(executors, "warm", P.SIGNAL_PARENT, task.public)
    assert (cold.exit_code, cold.stdout) == (0, "1\nsurvived\n")
    assert (warm.term_signal, warm.stdout) == (signal.SIGTERM, "0\n")
    assert ok(run(executors, "warm", P.NORMAL, task.public))["ok"]


# ============================================================================================
# 7. the zygote was never replaced by anything above


def test_zygote_never_replaced(executors, task):
    """Every attack above ran against the one zygote started for this module: none of them made
    the harness discard it (a replacement costs ~2 CPU-s and would be a denial of service)."""
    executors("warm")
    start = executors.state.zygotes_at_start
    r = run(executors, "warm", "print('still warm')", task.public)
    assert r.exit_code == 0
    assert zygote_cpu()["zygotes"] == start, zygote_cpu()
