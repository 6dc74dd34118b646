"""Hostile programs against the host itself (bwrap and warm backends): root, keyrings, syscalls, per-user
kernel limits, run-directory cleanup and the workspace byte limit.

Each test collects every escape it sees (``Escapes``) and reports them together, and each checks
that the executor still runs a normal job (``print(1)``) right after the attack.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from wmrl_envs.sandbox import Executor, Job, RunResult, make_executor

from . import attacks, hostile
from .conftest import SMALL, host_procs_with

pytestmark = pytest.mark.timeout(120)  # a harness that hangs fails its test, not the session

DENIED = {"EPERM", "ENOSYS"}  # what a seccomp filter answers
REFUSED = {"EROFS", "EACCES", "EPERM", "ENOENT"}  # a host file the program must not write
LONG_NAME = "d" * 200


class Escapes:
    """Every containment failure of one test, reported together at the end."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def check(self, ok: object, what: str) -> None:
        if not ok:
            self.found.append(what)

    def assert_none(self) -> None:
        assert not self.found, "escaped:\n  " + "\n  ".join(self.found)


@dataclass
class Box:
    ex: Executor
    base: Path  # WMRL_SANDBOX_DIR: where run dirs and code-only copies live
    public: Path
    token: str


@pytest.fixture
def box(task, token: str, backend: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    # Beside the default base (/dev/shm), not under tmp_path: the harness may run the sandbox
    # as an unprivileged uid, which cannot traverse pytest's 0700 folders.
    base = Path(tempfile.mkdtemp(prefix="hostile-base-", dir="/dev/shm"))
    base.chmod(0o755)
    atexit.register(rmdir_quietly, base)  # after the executors' own exit cleanup (LIFO)
    monkeypatch.setenv("WMRL_SANDBOX_DIR", str(base))
    yield Box(make_executor(backend, limits=SMALL), base, task[0], token)
    kill_marked(token)
    mounted = mounts_under(base)  # a live executor's stage mounts: its own exit removes them
    for name in os.listdir(base):  # what the test or a failed cleanup left: deep, mode 000
        if not any(base / name in (m, *m.parents) for m in mounted):
            subprocess.run(["rm", "-rf", "--one-file-system", str(base / name)], check=False)
    rmdir_quietly(base)


def rmdir_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


def mounts_under(path: Path) -> list[Path]:
    """Mount points below ``path`` in this mount namespace: never to be removed through."""
    with open("/proc/self/mountinfo") as f:
        points = [Path(line.split()[4].encode().decode("unicode_escape")) for line in f]
    return [p for p in points if path in p.parents]


def job(b: Box, source: str, limits: dict | None = None, **values: object) -> Job:
    code = attacks.render(source, token=b.token, **values)
    return Job(code=code, data_dir=b.public, limits=replace(SMALL, **(limits or {})))


def observed(r: RunResult) -> dict:
    """The last JSON line the program printed, ``{}`` if none."""
    for line in reversed(r.stdout.splitlines()):
        with contextlib.suppress(ValueError):
            return json.loads(line)
    return {}


def summary(r: RunResult) -> str:
    return (
        f"exit={r.exit_code} signal={r.term_signal} timed_out={r.timed_out} oom={r.oom_killed} "
        f"workspace_hit={r.workspace_limit_hit} error={r.error!r} stderr={r.stderr[-300:]!r}"
    )


def still_runs(ex: Executor, b: Box, e: Escapes) -> None:
    r = ex.run(Job(code="print(1)", data_dir=b.public))
    e.check(
        r.error is None and r.exit_code == 0 and r.stdout.strip() == "1",
        f"a normal job broke after the attack: {summary(r)}",
    )


ENTRY = re.compile(r"wmrl-([a-z-]+?)-([0-9a-f]+)-")  # wmrl-<kind>-<owner token (older: pid)>-<random>


def entries(base: Path, kind: str | None = None, owner: str | None = None) -> list[str]:
    """Harness entries in ``base``: run dirs, code-only copies, stages; of one kind or owner."""
    found = []
    for name in sorted(os.listdir(base)):
        m = ENTRY.match(name)
        if m and kind in (None, m[1]) and owner in (None, m[2]):
            found.append(name)
    return found


def owners(base: Path) -> set[str]:
    return {m[2] for name in os.listdir(base) if (m := ENTRY.match(name))}


def check_mount_limit(r: RunResult, e: Escapes) -> None:
    if os.geteuid() == 0:
        got = getattr(r, "workspace_limit", "<no such field>")
        e.check(got == "mount", f"the workspace byte limit is not a size-limited mount: {got!r}")


class Background:
    """``ex.run(j)`` in a thread, for the host to look on while the program runs."""

    def __init__(self, ex: Executor, j: Job) -> None:
        self._done: list[RunResult] = []
        self._raised: list[BaseException] = []
        self._worker = threading.Thread(target=self._run, args=(ex, j), daemon=True)
        self._worker.start()

    def _run(self, ex: Executor, j: Job) -> None:
        try:
            self._done.append(ex.run(j))
        except BaseException as exc:  # re-raised in the test's thread by result()
            self._raised.append(exc)

    def returned(self, timeout_s: float) -> bool:
        self._worker.join(timeout_s)
        return not self._worker.is_alive()

    def result(self) -> RunResult:
        self._worker.join()
        if self._raised:
            raise self._raised[0]
        return self._done[0]


def kill_marked(token: str) -> None:
    """SIGKILLs the host processes whose command line carries ``token``."""
    for pid in host_procs_with(token):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def wait_for(condition: Callable[[], object], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def build_chain(top: Path, depth: int) -> None:
    """``depth`` nested directories of 200-character names under ``top``, built by dir fd."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir(LONG_NAME, dir_fd=fd)
        deeper = os.open(LONG_NAME, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(fd)


# 1. Host root -------------------------------------------------------------------------------

SYSCTLS = ("/proc/sys/kernel/printk_ratelimit", "/proc/sys/kernel/core_pattern")


def host_view(pid: int) -> tuple[list[int], list[int]]:
    """The uids (real, effective, saved, fs) of ``pid`` and the host uids its uid_map maps to.

    Read from the host: inside, a nested user namespace (``bwrap --disable-userns``) shows
    the ids of its parent namespace, not the host's.
    """
    status = Path(f"/proc/{pid}/status").read_text()
    uids = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
    mapped = Path(f"/proc/{pid}/uid_map").read_text().split()[1::3]
    return [int(u) for u in uids], [int(u) for u in mapped]


def test_not_host_root(box: Box) -> None:
    before = {p: Path(p).read_bytes() for p in SYSCTLS}
    run = Background(box.ex, job(box, hostile.HOST_ROOT))
    e = Escapes()
    if wait_for(lambda: host_procs_with(box.token), 5):
        uids, mapped = host_view(host_procs_with(box.token)[0])
        e.check(0 not in uids, f"the program runs as host uid 0: Uid {uids}")
        e.check(0 not in mapped, f"its uid_map maps to host uid 0: {mapped}")
    else:
        e.check(False, "the program never showed up on the host")
    r = run.result()
    out = observed(r)
    e.check(out, f"the program did not report: {summary(r)}")
    host_uid = getattr(r, "host_uid", "<no such field>")
    e.check(isinstance(host_uid, int) and host_uid != 0, f"r.host_uid is {host_uid!r}")
    for path in SYSCTLS:
        key = path.rsplit("/", 1)[1]
        e.check(out.get(key) in REFUSED, f"wrote back {path} from inside ({out.get(key)})")
        e.check(Path(path).read_bytes() == before[path], f"{path} changed on the host")
    e.check(out.get("sysrq_trigger") != "opened", "opened /proc/sysrq-trigger for writing")
    opened = out.get("sys_opened", [])
    e.check(not opened, f"opened {len(opened)} /sys files for writing, e.g. {opened[:3]}")
    still_runs(box.ex, box, e)
    e.assert_none()


# 2. Kernel keyrings -------------------------------------------------------------------------


def test_keyrings(box: Box) -> None:
    first = box.ex.run(job(box, hostile.KEYRINGS))
    second = box.ex.run(job(box, hostile.KEYRINGS))  # looks for what the first left
    e = Escapes()
    a, b = observed(first), observed(second)
    e.check(a and b, f"the program did not report: {summary(first)} / {summary(second)}")
    for call in ("add_key_session", "add_key_user", "request_key", "keyctl"):
        e.check(a.get(call) in DENIED, f"{call} was not denied: {a.get(call)}")
    e.check(a.get("proc_keys") == "EACCES", f"/proc/keys was readable: {a.get('proc_keys')}")
    e.check(not a.get("seen"), f"the first run saw keys: {a.get('seen')}")
    e.check(not b.get("seen"), f"the second run saw keys the first left: {b.get('seen')}")
    host = [line for line in Path("/proc/keys").read_text().splitlines() if box.token in line]
    e.check(not host, f"the host's /proc/keys lists the program's keys: {host}")
    still_runs(box.ex, box, e)
    e.assert_none()


# 3. Seccomp ---------------------------------------------------------------------------------


def test_seccomp_denies_host_syscalls(box: Box) -> None:
    if platform.machine() != "x86_64":
        pytest.skip("syscall numbers are x86_64's")
    limits = {"wall_s": 20, "cpu_s": 10}  # the numpy/pandas import
    r = box.ex.run(job(box, hostile.SYSCALLS, limits, calls=hostile.DENIED_SYSCALLS))
    out = observed(r)
    e = Escapes()
    e.check(r.exit_code == 0 and out, f"the program did not report: {summary(r)}")
    for name, got in out.get("denied", {}).items():
        e.check(got in DENIED, f"{name} was not denied: {got}")
    e.check(out.get("personality_query", -1) >= 0, "personality(0xffffffff) (a query) failed")
    for works in ("fork", "thread", "numpy_pandas"):
        e.check(out.get(works) is True, f"{works} no longer works under the filter")
    e.check(
        out.get("seccomp_mode") == ["2"], f"/proc/self/status Seccomp: {out.get('seccomp_mode')}"
    )
    e.check(
        getattr(r, "seccomp", None) is True,
        f"r.seccomp is {getattr(r, 'seccomp', '<no such field>')!r}",
    )
    still_runs(box.ex, box, e)
    e.assert_none()


# 4. Per-user kernel limits ------------------------------------------------------------------


def test_inotify_exhaustion_spares_host(box: Box) -> None:
    """While the program holds every inotify instance it can get, the host's root gets one."""
    run = Background(box.ex, job(box, hostile.INOTIFY_HOLD, {"wall_s": 10}, hold_s=4))
    time.sleep(2)
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    host_errno = ctypes.get_errno()
    if fd >= 0:
        os.close(fd)
    r = run.result()
    out = observed(r)
    e = Escapes()
    e.check(out, f"the program did not report: {summary(r)}")
    e.check(
        fd >= 0,
        f"the host could not create an inotify instance ({errno.errorcode.get(host_errno)}) "
        f"while the program held {out.get('held')}",
    )
    still_runs(box.ex, box, e)
    e.assert_none()


# 5. Trees the cleanup has to remove ---------------------------------------------------------


@pytest.mark.parametrize(("depth", "width"), [(1500, 0), (0, 20000)], ids=["deep", "wide"])
def test_tree_in_workspace_cleaned(box: Box, depth: int, width: int) -> None:
    """A 1500-deep chain (or a 20000-wide dir), a FIFO, a socket and a mode-000 dir."""
    r = box.ex.run(job(box, hostile.TREE, {"wall_s": 15, "cpu_s": 8}, depth=depth, width=width))
    e = Escapes()
    e.check(r.error is None, f"the harness reported a problem: {r.error!r}")
    e.check(observed(r) == {"deep": depth, "wide": width}, f"the tree was not built: {summary(r)}")
    still_runs(box.ex, box, e)
    left = entries(box.base, "run")
    e.check(not left, f"run dirs left in the base folder: {left}")
    e.assert_none()


# 6. The wall limit ---------------------------------------------------------------------------


def test_wall_limit_not_delayed_by_tree(box: Box) -> None:
    wall, bound = 3, 3 + 15
    limits = {"wall_s": wall, "cpu_s": 30}  # the wall limit, not CPU, ends it
    run = Background(box.ex, job(box, hostile.TREE_THEN_SLEEP, limits, build_s=wall - 0.5))
    e = Escapes()
    returned = run.returned(bound)
    e.check(returned, f"run() had not returned {bound} s after the start under wall_s={wall}")
    if not returned:
        kill_marked(box.token)  # ends the program, so that run() may return
        if not run.returned(10):
            e.assert_none()  # the harness itself is stuck: report it rather than wait on it
    r = run.result()
    e.check(r.timed_out, f"not timed out: {summary(r)}")
    e.check(r.wall_s < bound, f"killed after {r.wall_s:.1f} s under wall_s={wall}")
    still_runs(box.ex, box, e)
    left = entries(box.base, "run")
    e.check(not left, f"run dirs left in the base folder: {left}")
    e.assert_none()


# 7. The workspace byte limit ----------------------------------------------------------------

WORKSPACE_MB = 64
FILL = {"workspace_mb": WORKSPACE_MB, "wall_s": 10, "cpu_s": 8}


def check_fill(r: RunResult, where: str, e: Escapes) -> None:
    out = observed(r)
    held = out.get("held_mb")
    e.check(held is not None, f"the program did not report: {summary(r)}")
    e.check(
        held is None or held <= 2 * WORKSPACE_MB,
        f"held {held} MB in {where} under workspace_mb={WORKSPACE_MB}",
    )
    e.check(
        out.get("failed") == "ENOSPC" or r.workspace_limit_hit or r.oom_killed,
        f"neither ENOSPC nor a kill: failed={out.get('failed')} {summary(r)}",
    )
    check_mount_limit(r, e)


@pytest.mark.parametrize("where", [".", "/tmp", "/dev/shm"], ids=["workspace", "tmp", "shm"])
def test_unlinked_open_files_count(box: Box, where: str) -> None:
    r = box.ex.run(job(box, hostile.HOLD_UNLINKED, FILL, where=where, total_mb=400))
    e = Escapes()
    check_fill(r, where, e)
    still_runs(box.ex, box, e)
    e.assert_none()


def test_fill_below_deep_chain(box: Box) -> None:
    r = box.ex.run(job(box, hostile.FILL_BELOW_DEEP_CHAIN, FILL, depth=1500, total_mb=400))
    e = Escapes()
    check_fill(r, "a 1500-deep chain", e)
    still_runs(box.ex, box, e)
    e.assert_none()


def test_sparse_file(box: Box) -> None:
    """A 10 GB sparse file (file_mb high enough that the truncate lands) breaks nothing."""
    r = box.ex.run(job(box, hostile.SPARSE, {**FILL, "file_mb": 16 << 10}))
    e = Escapes()
    e.check(r.error is None, f"the harness reported a problem: {r.error!r}")
    e.check(r.exit_code == 0 or r.workspace_limit_hit, f"the run failed: {summary(r)}")
    check_mount_limit(r, e)
    still_runs(box.ex, box, e)
    e.assert_none()


# 8-9. Leftovers of dead harnesses ----------------------------------------------------------


def test_killed_harness_leftovers_swept(box: Box) -> None:
    code = attacks.render(hostile.SLEEPER, token=box.token)
    before = owners(box.base)
    harness = subprocess.Popen(
        [sys.executable, "-c", hostile.HARNESS, str(box.public), box.ex.name], stdin=subprocess.PIPE
    )
    assert harness.stdin is not None
    with harness.stdin:
        harness.stdin.write(code.encode())
    running = wait_for(
        lambda: entries(box.base, "run") and owners(box.base) - before and host_procs_with(box.token), 20
    )
    harness.kill()
    harness.wait()
    (dead,) = owners(box.base) - before if running else ("-",)  # the killed harness's token
    try:
        assert running, f"the harness's job never started (entries: {entries(box.base)})"
        ex = make_executor(box.ex.name, limits=SMALL)  # the next harness on the same base
        e = Escapes()
        still_runs(ex, box, e)
        left = entries(box.base, owner=dead)  # run dirs, code-only copies, anything else
        e.check(not left, f"the dead harness's entries were not swept: {left}")
        mounted = [m for m in mounts_under(box.base) if f"-{dead}-" in str(m)]
        e.check(not mounted, f"the dead harness's host mounts remain: {mounted}")
        e.check(
            wait_for(lambda: not host_procs_with(box.token), 5),
            f"the dead harness's job still runs on the host: {host_procs_with(box.token)}",
        )
        e.assert_none()
    finally:  # what the sweep left mounted, deepest first, so that the teardown can remove it
        for m in sorted(mounts_under(box.base), key=lambda m: len(m.parts), reverse=True):
            if f"-{dead}-" in str(m):
                subprocess.run(["umount", "--lazy", str(m)], check=False)


def test_bad_leftover_never_blocks_others(box: Box) -> None:
    dead = dead_pid()
    bad = box.base / f"wmrl-run-{dead}-0bad"  # sorts first: removed (or failed on) first
    bad.mkdir()
    build_chain(bad, 1500)
    os.mkfifo(bad / "fifo")
    (bad / "locked").mkdir()
    (bad / "locked" / "weird").touch(mode=0o7000)
    (bad / "locked").chmod(0)
    plain = box.base / f"wmrl-run-{dead}-1plain"
    code_only = box.base / f"wmrl-code-only-{dead}-2plain"
    for d in (plain, code_only):
        d.mkdir()
        (d / "file").write_text("x")
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    live = box.base / f"wmrl-run-{owner.pid}-3live"
    live.mkdir()
    try:
        ex = make_executor(box.ex.name, limits=SMALL)
        e = Escapes()
        still_runs(ex, box, e)
        for d in (bad, plain, code_only):
            e.check(not os.path.lexists(d), f"dead owner's {d.name} was not swept")
        e.check(live.exists(), f"swept {live.name}, whose owner is alive")
        e.assert_none()
    finally:
        owner.kill()
        owner.wait()


# 11. A legitimate job -----------------------------------------------------------------------


def test_sklearn_still_works(box: Box) -> None:
    r = box.ex.run(job(box, attacks.SKLEARN, {"wall_s": 30, "cpu_s": 20}))
    e = Escapes()
    e.check(r.ok, f"the sklearn job failed: {summary(r)}")
    e.check(r.stdout.split()[:2] == [box.token, "2"], f"unexpected output: {r.stdout!r}")
    lines = r.files.get("submission.csv", b"").decode().splitlines()
    e.check(lines[:1] == ["id,y"] and len(lines) == 101, f"submission not collected: {lines[:3]}")
    still_runs(box.ex, box, e)
    e.assert_none()
