"""The warm backend: each run gets the sandbox a cold bwrap run gets, and starts with the
scientific stack already imported.

Why: a program that only imports numpy, pandas and scikit-learn costs 1.5-1.8 CPU-s, about 60%
of the median program the compare runs; every run pays it again. Sandbox2's fork server,
Android's zygote and serverless snapshots all remove that fixed cost the same way: start one
process, initialise it, and make each run a copy of it.

How, without giving up any isolation (the threat model delta is in ``docs/security.md``):

* bubblewrap still builds every run's sandbox with the cold backend's own arguments
  (``bwrap.bwrap_args``: fresh user, mount, pid, network, IPC, UTS and cgroup namespaces, the
  run's size-limited tmpfs workspace, ``/tmp`` and ``/dev/shm``, read-only binds, the masked
  packages), gated, in the run's cgroups and under its rlimits. Its payload is ``sleep``, run as
  the pid namespace's init (``--as-pid-1``): it only holds the namespaces, no program may signal
  it, and its death takes the whole pid namespace with it.
* The zygote (``zygote.py``, one per interpreter, user and thread count, shared by every warm
  executor of this process) imported the libraries once and then dropped to the sandbox user.
  For a run it clones a child *of the harness* (``CLONE_PARENT``) that blocks on a gate until the
  harness has put it into the run's cgroups, then joins the sandbox's namespaces, becomes the
  sandbox uid there with no capability and no_new_privs, takes the run's rlimits and forks the
  program into the run's pid namespace under the same seccomp filter. The harness supervises that
  child as it supervises bwrap in a cold run (``supervise.Launcher.leader``).
* The zygote receives only descriptors and a spec of ids, limits, environment and the filter: no
  task data, no program text (the program reads its own file inside the sandbox). It runs no
  program code, so nothing a run does reaches it or a later run; one that stops answering is
  replaced, never reused.

Compute: ``RunResult.cpu_s`` is the run's own CPU (its cgroup). The zygotes' CPU (start-up
imports, and the page-table copies of each clone) is theirs: :func:`zygote_cpu` reports it,
and the benchmarks and ``wmrl compare`` add it to the runs they served.
"""

from __future__ import annotations

import array
import atexit
import fcntl
import functools
import json
import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from . import procfs, program, seccomp
from .base import Job, Limits, RunResult
from .bwrap import SANDBOX_UID, BwrapExecutor, _BwrapLauncher
from .bwrap import probe as bwrap_probe
from .cgroups import RunCgroup
from .identity import Identity
from .supervise import rlimits
from .workspace import SANDBOX_PROGRAM, SANDBOX_WORKSPACE
from .zygote import FDS, SYS_CLONE

log = logging.getLogger(__name__)

# What the task pages advertise (numpy, pandas, scipy, scikit-learn) and the submodules agent
# programs import most; a library missing here is skipped (and named in ``Zygote.failed``).
PRELOAD = (
    "numpy", "pandas", "scipy", "scipy.stats", "scipy.sparse", "scipy.optimize",
    "sklearn", "sklearn.base", "sklearn.ensemble", "sklearn.linear_model", "sklearn.model_selection",
    "sklearn.metrics", "sklearn.preprocessing", "sklearn.impute", "sklearn.pipeline",
    "sklearn.compose", "sklearn.tree", "sklearn.neighbors", "sklearn.svm", "sklearn.decomposition",
    "sklearn.feature_extraction.text", "sklearn.feature_selection", "sklearn.naive_bayes",
    "sklearn.utils", "lightgbm", "xgboost", "statsmodels.api", "statsmodels.formula.api",
)  # fmt: skip
HOLD = ("/usr/bin/sleep", "infinity")  # the sandbox's payload: keeps its namespaces alive
ZYGOTE_SCRIPT = Path(__file__).with_name("zygote.py")
START_TIMEOUT_S = 300.0
CLONE_TIMEOUT_S = 30.0
_NS_GET_USERNS = 0xB701  # ioctl on a namespace fd: the user namespace that owns it


def probe() -> str | None:
    """None if the warm backend can work here (bwrap works, and this architecture has a clone
    number), else why not. A zygote that then fails to start makes runs fall back to cold."""
    reason = bwrap_probe()
    if reason is not None:
        return reason
    if os.uname().machine not in SYS_CLONE:
        return f"no clone syscall number for {os.uname().machine}"
    if not ZYGOTE_SCRIPT.is_file():
        return f"the zygote script {ZYGOTE_SCRIPT} is missing"
    return None


class WarmUnavailable(RuntimeError):
    """The zygote could not be started (a missing interpreter, a refused drop, ...)."""


@dataclass
class _Clone:
    """The run's leading process, a child of this harness cloned by the zygote (a ``Leader``)."""

    pid: int
    stdout: IO[bytes]
    stderr: IO[bytes]
    returncode: int | None = None


def _script_fd() -> int:
    """The zygote script open at the lowest free descriptor from 10: run as ``/proc/self/fd/NN``,
    its command line is exactly as long as ``python /sandbox/main.py``, which each run writes over
    it, and no host path of the project appears in it or in the zygote's code objects."""
    fd = os.open(ZYGOTE_SCRIPT, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    finally:
        os.close(fd)


class Zygote:
    """One zygote process: started, asked for clones, measured, closed."""

    def __init__(self, python: str, env: Mapping[str, str], user: Identity | None, preload: Sequence[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        uid, gid = (user.uid, user.gid) if user is not None else (os.getuid(), os.getgid())
        script = _script_fd()
        try:
            self.proc = subprocess.Popen(
                [python, f"/proc/self/fd/{script}"],  # ids and modules travel on the socket
                pass_fds=(script,),
                env={**env, "PWD": SANDBOX_WORKSPACE},  # a clone's initial environment is a cold run's (zygote.py)
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd="/",
                start_new_session=True,
            )
        except OSError as e:
            ours.close()
            raise WarmUnavailable(f"could not start the zygote: {e}") from e
        finally:
            theirs.close()
            os.close(script)
        own = seccomp.filter_bytes(seccomp.ZYGOTE_NEEDS)
        ours.send(json.dumps({"uid": uid, "gid": gid, "sandbox_uid": SANDBOX_UID, "sandbox_gid": SANDBOX_UID,
                              "preload": list(preload), "thread_vars": list(program.THREAD_VARS),
                              "seccomp": None if own is None else own.hex()}).encode())
        self.sock = ours
        self.runs = 0
        self.cpu_s = 0.0
        self.charged = 0.0  # of cpu_s, what runs have been charged with (RunResult.startup_cpu_s)
        self._lock = threading.Lock()
        try:
            reply = self._ask(None, (), START_TIMEOUT_S)
        except OSError as e:
            detail = self._stderr_tail()
            self.close()
            raise WarmUnavailable(f"the zygote did not start: {e}" + (f": {detail}" if detail else "")) from e
        finally:
            if self.proc.stderr is not None:
                self.proc.stderr.close()
        self.imported: list[str] = reply["imported"]
        self.failed: dict[str, str] = reply["failed"]
        self.startup_cpu_s = self.measure()

    def _stderr_tail(self) -> str:
        try:
            self.proc.wait(timeout=5)
            return self.proc.stderr.read()[-2000:].decode(errors="replace").strip() if self.proc.stderr else ""
        except (subprocess.TimeoutExpired, OSError, ValueError):
            return ""

    def _ask(self, spec: dict | None, fds: Sequence[int], timeout: float) -> dict:
        with self._lock:
            self.sock.settimeout(timeout)
            if spec is not None:
                anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                self.sock.sendmsg([json.dumps(spec).encode()], anc)
            msg = self.sock.recv(1 << 16)
        if not msg:
            raise OSError("the zygote exited")
        reply = json.loads(msg)
        if "error" in reply:
            raise OSError(f"the zygote refused: {reply['error']}")
        return reply

    def clone(self, spec: dict, fds: Sequence[int]) -> tuple[int, float]:
        """A new child of this process, blocked on the gate in ``fds``: its pid, and the zygote's
        CPU not yet charged to any run (its start-up, for the first clone; then clone costs)."""
        pid = int(self._ask(spec, fds, CLONE_TIMEOUT_S)["pid"])
        with self._lock:
            self.runs += 1
            now = self.measure()
            charge, self.charged = now - self.charged, now
        return pid, charge

    def alive(self) -> bool:
        return self.proc.poll() is None

    def measure(self) -> float:
        """The zygote's CPU so far (start-up imports and every clone's page-table copy)."""
        p = procfs.read(self.proc.pid)
        if p is not None:
            self.cpu_s = max(self.cpu_s, p.cpu_s)
        return self.cpu_s

    def close(self) -> None:
        self.measure()
        self.sock.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


_zygotes: dict[tuple, Zygote] = {}
_retired: list[Zygote] = []
_zygotes_lock = threading.Lock()


def _zygote(python: str, env: Mapping[str, str], user: Identity | None, preload: tuple[str, ...]) -> Zygote:
    """This process's zygote for these settings: started on first use, replaced once dead."""
    key = (python, tuple(sorted(env.items())), user, preload)
    with _zygotes_lock:
        z = _zygotes.get(key)
        if z is not None and not z.alive():
            _retire(key)
            z = None
        if z is None:
            z = Zygote(python, env, user, preload)
            _zygotes[key] = z
            if z.failed:
                log.info("warm sandbox: not preloaded (runs import them themselves): %s", z.failed)
        return z


def _retire(key: tuple) -> None:
    z = _zygotes.pop(key, None)
    if z is not None:
        z.close()
        _retired.append(z)


def _discard(z: Zygote) -> None:
    """Never reuse a zygote that failed a request."""
    with _zygotes_lock:
        for key, live in list(_zygotes.items()):
            if live is z:
                _retire(key)


def zygote_cpu() -> dict[str, float]:
    """CPU the zygotes of this process spent (live and retired), and the runs they served."""
    with _zygotes_lock:
        zs = [*_zygotes.values(), *_retired]
        return {
            "zygotes": len(zs),
            "zygote_cpu_s": sum(z.measure() for z in zs),
            "startup_cpu_s": sum(z.startup_cpu_s for z in zs),
            "runs": sum(z.runs for z in zs),
        }


@atexit.register
def _close_all() -> None:
    with _zygotes_lock:
        for key in list(_zygotes):
            _retire(key)


def _namespace_fds(pid: int) -> list[int]:
    """The descriptors a clone needs after the gate and pipes, in ``zygote.FDS`` order."""
    fds: dict[str, int] = {}
    try:
        for ns in ("user", "mnt", "net", "ipc", "uts", "cgroup", "pid"):
            fds[ns] = os.open(f"/proc/{pid}/ns/{ns}", os.O_RDONLY | os.O_CLOEXEC)
        fds["outer_user"] = fcntl.ioctl(fds["mnt"], _NS_GET_USERNS)
    except OSError:
        for fd in fds.values():
            os.close(fd)
        raise
    return [fds[n] for n in FDS[3:]]


class _WarmLauncher(_BwrapLauncher):
    leader_is_program = True  # the clone waits for the program: its rusage includes the program's

    def __init__(
        self, options: functools.partial, env: Mapping[str, str], argv: list[str] | None, ex: WarmExecutor, limits: Limits,
        who: Identity | None,
    ) -> None:
        super().__init__(options, {}, list(HOLD))
        self.program_env, self.argv_job, self.ex, self.limits, self.who = dict(env), argv, ex, limits, who

    def host_tasks(self, limits: Limits) -> int:
        """One more than cold's: the clone that waits for the program (outside the cgroup under
        cold, where bwrap's outer process waits) shares the run's cgroup."""
        return limits.max_procs + 1

    def argv(self, info_fd: int | None) -> list[str]:
        # The holder is the pid namespace's init, which nothing inside may signal: a program's
        # kill(-1) or kill(1) then meets what it meets under cold bwrap (nothing it can kill).
        a = super().argv(info_fd)
        return [a[0], "--as-pid-1", *a[1:]]

    def leader(self, proc: subprocess.Popen, info: Mapping, cg: RunCgroup | None) -> _Clone:
        init = info.get("child-pid")
        if not init:
            raise OSError("bwrap reported no sandbox process")
        holder = _holder(int(init), self.limits.wall_s)
        host_uid = self.who.uid if self.who else os.getuid()
        bpf = seccomp.filter_bytes()
        spec = {
            "uid": SANDBOX_UID,
            "gid": SANDBOX_UID,
            "rlimits": rlimits(self.limits, cg, host_uid),
            "env": {**self.program_env, "PWD": SANDBOX_WORKSPACE},  # bwrap's --chdir sets PWD
            "cwd": SANDBOX_WORKSPACE,
            "program": SANDBOX_PROGRAM,
            "python": self.ex.python,
            "threads": self.limits.threads,
            "argv": self.argv_job,
            "seccomp": None if bpf is None else bpf.hex(),
            "keyctl_nr": seccomp.ARCHES[os.uname().machine][2]["keyctl"],
            "cap_last_cap": _cap_last_cap(),
        }
        gate_r, gate_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sent = [gate_r, out_w, err_w]
        try:
            sent += _namespace_fds(holder)
            pid, self.startup_cpu_s = self.ex.clone(self.limits, spec, sent, self.who)
        except BaseException:
            for fd in (gate_w, out_r, err_r):
                os.close(fd)
            raise
        finally:
            for fd in sent:
                os.close(fd)
        try:
            p = procfs.read(pid)
            if p is None or p.ppid != os.getpid():
                raise OSError(f"the zygote answered pid {pid}, which is not this harness's child")
            if cg is not None:
                cg.add(pid, spawned=False)
            os.write(gate_w, b"go\n")
        except BaseException:
            _reap(pid)
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(gate_w)
        return _Clone(pid, os.fdopen(out_r, "rb", 0), os.fdopen(err_r, "rb", 0))


def _holder(init: int, timeout: float) -> int:
    """The sandbox's init once it runs ``HOLD``: bwrap has finished building the sandbox (its
    nested user namespace, mounts, uid) only when it execs the payload."""
    end = time.monotonic() + min(timeout, CLONE_TIMEOUT_S)
    pause = 0.0005
    while time.monotonic() < end:
        try:
            if Path(f"/proc/{init}/comm").read_text().strip() == Path(HOLD[0]).name:
                return init
        except OSError:
            raise OSError("the sandbox exited before it was ready") from None
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    raise OSError("the sandbox was not ready in time")


def _reap(pid: int) -> None:
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


@functools.cache
def _cap_last_cap() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 40


class WarmExecutor(BwrapExecutor):
    """Runs each job in a fresh bubblewrap sandbox, as a clone of a zygote that has ``preload``
    imported (see the module docstring). Takes every ``BwrapExecutor`` option, and:

    Args:
        preload: modules the zygote imports (default ``PRELOAD``; missing ones are skipped).
    """

    name = "warm"
    probe = staticmethod(probe)

    def __init__(self, limits: Limits | None = None, workers: int | None = None, *, preload: Sequence[str] = PRELOAD,
                 **options) -> None:
        super().__init__(limits, workers, **options)
        self.preload = tuple(preload)
        self._cold_reason: str | None = None

    def _zygote(self, limits: Limits, who: Identity | None) -> Zygote:
        """The zygote of ``who``, the run's host user: it must own the run's user namespace to join it."""
        env = program.environment(limits, path=program.search_path(self.python), tmp="/tmp")
        return _zygote(self.python, env, who, self.preload)

    def clone(self, limits: Limits, spec: dict, fds: Sequence[int], who: Identity | None) -> tuple[int, float]:
        z = self._zygote(limits, who)
        try:
            return z.clone(spec, fds)
        except (OSError, ValueError) as e:
            _discard(z)
            raise OSError(f"warm sandbox: {e}") from e

    def _launcher(self, options: functools.partial, env: dict[str, str], cmd: list[str], job: Job, limits: Limits,
                  who: Identity | None):
        if self._cold_reason is not None:
            return super()._launcher(options, env, cmd, job, limits, who)
        return _WarmLauncher(options, env, cmd if job.code is None else None, self, limits, who)

    def _run(self, job: Job, who: Identity | None) -> RunResult:
        if self._cold_reason is None:
            try:
                self._zygote(job.limits or self.limits, who)
            except WarmUnavailable as e:
                self._cold_reason = str(e)
                log.warning("warm sandbox unavailable (%s): running cold bwrap instead", e)
        result = super()._run(job, who)
        if self._cold_reason is not None:
            result.backend = "bwrap"
        return result
