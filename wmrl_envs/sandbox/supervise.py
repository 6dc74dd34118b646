"""Start one confined process tree, watch it against its limits, kill it, and account for it.

A backend supplies a ``Launcher``: the command line, and which of the started processes to
confine. The command runs as the sandbox user when one is given, behind ``prlimit`` (which sets
the rlimits on itself and execs, so no ``preexec_fn`` runs between fork and exec, which is
unsafe in a threaded trainer), and is started *gated*: it blocks reading its stdin until the
supervisor has moved it into the run's cgroups. One ``poll`` loop then serves the output pipes,
the process's pidfd and the watcher (total CPU, workspace size, and memory where no cgroup limits
it); the wall-clock kill comes from a timer thread, so no watcher pass can delay it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from . import identity, procfs, verdicts
from .base import Limits, MiB, RunResult
from .capture import HeadTail
from .cgroups import RunCgroup
from .identity import Identity
from .workspace import RunDir

WATCH_INTERVAL_S = 0.1
# After reading output the loop waits this long before reading again, so the harness wakes at most
# 100 times a second however the run splits its writes (one byte at a time cost the harness as
# much CPU as the run: the sixth red team); the 1 MB pipes hold what comes meanwhile.
READ_GAP_S = 0.01
CPU_GRACE_S = 0.25
_PIPE_SIZE = 1 << 20
_SETTLE_S = 2.0
# Open descriptors per process (Docker's default too): every AF_UNIX socket holds kernel buffers
# a cgroup-v1 host does not charge, and in-flight descriptors (SCM_RIGHTS) are capped by it.
NOFILE = 1024
_PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"  # util-linux


class Launcher(Protocol):
    """What a backend tells the supervisor about its command."""

    wants_info: bool  # the command writes bwrap's ``--info-fd`` JSON to the fd passed to argv()
    exit_carries_signal: bool  # exit status 128+N means "the program died by signal N"
    leader_is_program: bool  # the started process execs the program (its rusage is the program's)
    # The command sets the program's user and rlimits and counts its processes itself (a kernel of
    # its own, gVisor): it is started as the harness, without prlimit.
    confines_itself: bool
    startup_cpu_s: float  # CPU spent outside the run to start it (``RunResult.startup_cpu_s``)
    pass_fds: tuple[int, ...]  # fds the command inherits; the supervisor closes its copies at start

    def argv(self, info_fd: int | None) -> list[str]: ...

    def host_tasks(self, limits: Limits) -> int:
        """The run's cap on host processes and threads (its pids cgroup)."""
        ...

    def confine(self, pid: int, info: Mapping) -> list[int]:
        """Processes to put into cgroups and rlimits before the gate opens."""
        ...

    def tree(self, pid: int, info: Mapping) -> procfs.Tree:
        """How to find the run's processes when there is no cgroup."""
        ...

    def leader(self, proc: subprocess.Popen, info: Mapping, cg: RunCgroup | None) -> Leader:
        """The process whose exit ends the run, started once the gate is open: ``proc`` itself,
        or (warm backend) a process joined to the sandbox ``proc`` built. Raises OSError if it
        could not start."""
        ...


class Leader(Protocol):
    """What the supervisor uses of the run's leading process: a ``subprocess.Popen`` or alike.
    It is this process's child, leads its own process group, and owns the output pipes."""

    pid: int
    stdout: IO[bytes]
    stderr: IO[bytes]
    returncode: int | None


@dataclass
class _Watch:
    """Why the supervisor ended the run, and what it measured on the way."""

    timed_out: bool = False
    cpu_limit_hit: bool = False
    workspace_limit_hit: bool = False
    memory_limit_hit: bool = False
    output_limit_hit: bool = False
    peak_rss: int = 0
    cpu_s: float = 0.0
    reasons: list[str] = field(default_factory=list)


def supervise(
    launcher: Launcher,
    env: Mapping[str, str],
    cwd: str | None,
    limits: Limits,
    rundir: RunDir,
    result: RunResult,
    use_cgroups: bool = True,
    user: Identity | None = None,
) -> RunResult:
    """Run the launcher's command under ``limits``, as ``user`` if given; fill in ``result``."""
    cg = RunCgroup.create(limits, launcher.host_tasks(limits)) if use_cgroups else None
    result.uncharged = uncharged(cg, own_kernel=launcher.confines_itself)
    try:
        return _supervise(launcher, env, cwd, limits, rundir, result, cg, user)
    finally:
        if cg is not None:
            cg.remove()


def _spawn(launcher, env, cwd, limits, cg: RunCgroup | None, user: Identity | None, info_w: int | None):
    argv = launcher.argv(info_w)
    drop: dict[str, Any] = {}
    if not launcher.confines_itself:
        argv = _rlimit_argv(limits, cg, user.uid if user is not None else os.getuid()) + argv
        if user is not None:
            drop = {"user": user.uid, "group": user.gid, "extra_groups": []}
    fds = tuple(launcher.pass_fds) + ((info_w,) if info_w is not None else ())
    identity.fresh_session_keyring()
    try:
        with cg.spawning() if cg is not None else contextlib.nullcontext():
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=fds,
                start_new_session=True,
                env=dict(env),
                cwd=cwd,
                **drop,
            )
    finally:
        for fd in fds:
            os.close(fd)


def _supervise(launcher, env, cwd, limits, rundir, result, cg: RunCgroup | None, user) -> RunResult:
    info_r = info_w = None
    if launcher.wants_info:
        info_r, info_w = os.pipe()
    start = time.monotonic()
    try:
        proc = _spawn(launcher, env, cwd, limits, cg, user, info_w)
    except OSError as e:
        if info_r is not None:
            os.close(info_r)
        result.error = f"could not start the sandbox: {e}"
        return result
    out, err = HeadTail(limits.output_bytes), HeadTail(limits.output_bytes)
    info = _read_info(info_r, proc, timeout=limits.wall_s) if info_r is not None else {}
    confined = launcher.confine(proc.pid, info)
    tree = None if cg is not None else launcher.tree(proc.pid, info)
    if tree is not None:
        tree.pipes = {os.fstat(f.fileno()).st_ino for f in (proc.stdout, proc.stderr)}
    watch = _Watch()
    gate_error = _open_gate(proc, confined, cg)
    lead: Leader = proc
    if gate_error is None:
        try:
            lead = launcher.leader(proc, info, cg)
        except OSError as e:
            gate_error = str(e)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
    deadline = start + limits.wall_s
    with _deadline_kill((lead, proc), cg, deadline, watch):
        _loop(lead, {lead.stdout.fileno(): out, lead.stderr.fileno(): err}, deadline, limits, rundir, cg, tree, watch)
    result.wall_s = time.monotonic() - start
    _, status, rusage = _kill_leader(lead)
    lead.returncode = os.waitstatus_to_exitcode(status)
    if lead is not proc:  # the sandbox's own bwrap: its pid namespace dies with it
        _kill_leader(proc)
    _kill_all(lead, cg, tree)
    _drain(lead, out, err, limits.output_mb * MiB)
    _account(result, lead, launcher, cg, tree, watch, limits, rundir, out, err, gate_error)
    for f in {proc.stdout, proc.stderr, lead.stdout, lead.stderr}:
        f.close()
    if cg is None and launcher.leader_is_program:
        result.cpu_s = max(result.cpu_s or 0.0, rusage.ru_utime + rusage.ru_stime)
        if rusage.ru_maxrss * 1024 > (result.peak_mem_bytes or 0):
            result.peak_mem_bytes, result.peak_mem_source = rusage.ru_maxrss * 1024, "rusage"
    return result


def _read_info(fd: int, proc: subprocess.Popen, timeout: float) -> dict:
    """bwrap's ``--info-fd`` JSON ({} if the command exits first)."""
    data = b""
    end = time.monotonic() + timeout
    poller = select.poll()  # not select(): a busy trainer can hold fds past FD_SETSIZE
    poller.register(fd, select.POLLIN)
    try:
        while time.monotonic() < end:
            if not poller.poll(500):
                if _exited(proc.pid):
                    return {}
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
            try:
                return json.loads(data)
            except ValueError:
                continue
    finally:
        os.close(fd)
    return {}


@contextlib.contextmanager
def _deadline_kill(procs: tuple[Leader, ...], cg: RunCgroup | None, deadline: float, watch: _Watch):
    """Kill the run at ``deadline`` from a timer thread, whatever the watcher is busy with."""

    def fire() -> None:
        watch.timed_out = True
        if cg is not None:
            cg.kill()
        for proc in procs:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(max(deadline - time.monotonic(), 0.0), fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()


def _open_gate(proc: subprocess.Popen, confined: list[int], cg: RunCgroup | None) -> str | None:
    """Confine, then let the program start; return why not, if it could not. On failure the
    whole group is killed first: closing the gate's pipe alone would let it run unconfined."""
    gate = proc.stdin
    if gate is None:
        raise ValueError("the sandbox's gate needs the process started with stdin=subprocess.PIPE")
    error = None
    try:
        if not confined:
            raise ProcessLookupError("it exited before reporting its process")
        _confine(confined, cg)
        gate.write(b"go\n")
        gate.flush()
    except (OSError, ValueError) as e:
        error = str(e) or type(e).__name__
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        gate.close()
    except OSError:
        pass
    return error


def _confine(pids: list[int], cg: RunCgroup | None) -> None:
    if cg is not None:
        for pid in pids:
            cg.add(pid)


def uncharged(cg: RunCgroup | None, own_kernel: bool = False) -> str:
    """What a run makes the kernel hold or do that this host's accounting does not charge to it.
    ``own_kernel``: the run's kernel objects live in its own kernel's memory (gVisor's Sentry)."""
    memory = cg.memory_version if cg is not None else None
    parts = {None: ["kernel memory (no memory cgroup: the watcher sees the processes' own)"],
             1: ["AF_UNIX socket buffers (cgroup v1 charges no socket memory; bounded by "
                 f"{NOFILE} descriptors)"],
             2: []}[memory] if not own_kernel else []
    if cg is None or not cg.limits_disk:
        parts.append("disk bandwidth (no I/O cgroup controller: reads of the host's disks are not capped)")
    return "; ".join([*parts, "kernel threads' CPU done for the run (e.g. the AF_UNIX socket GC)"])


def program_rlimits(limits: Limits) -> dict[str, tuple[int, int]]:
    """The rlimits of every run's program, ``resource.RLIMIT_*`` name -> (soft, hard); the process
    count is the backend's (:func:`rlimits` on the host's kernel)."""
    cpu = math.ceil(limits.cpu_s)
    return {"RLIMIT_CPU": (cpu, cpu + 1), "RLIMIT_FSIZE": (limits.file_mb * MiB,) * 2, "RLIMIT_CORE": (0, 0),
            "RLIMIT_NOFILE": (NOFILE, NOFILE)}


def rlimits(limits: Limits, cg: RunCgroup | None, uid: int) -> dict[str, tuple[int, int]]:
    """The run's rlimits on the host's kernel, ``resource.RLIMIT_*`` name -> (soft, hard)."""
    out = program_rlimits(limits)
    if cg is None or not cg.limits_pids:
        # RLIMIT_NPROC counts all processes of the uid, not of this run: allow what runs now.
        mine = sum(1 for p in os.listdir("/proc") if p.isdigit() and _owned(p, uid))
        out["RLIMIT_NPROC"] = (mine + limits.max_procs,) * 2
    return out


def _rlimit_argv(limits: Limits, cg: RunCgroup | None, uid: int) -> list[str]:
    """``prlimit`` in front of the command: it sets its own limits and execs, so the limits hold
    for everything the command starts. (Setting them from outside on a process of another user
    needs CAP_SYS_RESOURCE, which containers often drop.)"""
    flags = [f"--{k.removeprefix('RLIMIT_').lower()}={soft}:{hard}" for k, (soft, hard) in rlimits(limits, cg, uid).items()]
    return [_PRLIMIT, *flags, "--"]


def _owned(pid: str, uid: int) -> bool:
    try:
        return os.stat(f"/proc/{pid}").st_uid == uid
    except OSError:
        return False


def _loop(proc, streams: dict[int, HeadTail], deadline, limits, rundir, cg, tree, watch: _Watch) -> None:
    poller = select.poll()
    for fd in streams:
        _grow_pipe(fd)
        poller.register(fd, select.POLLIN)
    try:
        pidfd = os.pidfd_open(proc.pid)
        poller.register(pidfd, select.POLLIN)
    except (AttributeError, OSError):
        pidfd = None
    next_check = time.monotonic() + WATCH_INTERVAL_S
    output_cap = limits.output_mb * MiB
    try:
        while True:
            now = time.monotonic()
            wait = min(deadline, next_check) - now
            if pidfd is None:
                wait = min(wait, 0.01)
            read = False
            for fd, _ in poller.poll(max(wait, 0) * 1000):
                if fd == pidfd:
                    continue
                chunk = os.read(fd, _PIPE_SIZE)
                read = True
                if chunk:
                    streams[fd].feed(chunk)
                else:
                    poller.unregister(fd)
            if read:
                time.sleep(max(0.0, min(READ_GAP_S, deadline - time.monotonic())))
            if sum(s.total for s in streams.values()) > output_cap:
                watch.output_limit_hit = True
                return
            if _exited(proc.pid):
                return
            now = time.monotonic()
            if now >= deadline:
                watch.timed_out = True
                return
            if now >= next_check:
                next_check = now + WATCH_INTERVAL_S
                if _over_limits(limits, rundir, cg, tree, watch):
                    return
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it (its rusage is read later)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _grow_pipe(fd: int) -> None:
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except (AttributeError, OSError):
        pass


def _over_limits(limits: Limits, rundir: RunDir, cg, tree, watch: _Watch) -> bool:
    if cg is not None:
        watch.cpu_s = cg.cpu_s() or 0.0
        rss = None if cg.limits_memory else cg.memory_bytes()
    else:
        procs = tree.scan()
        watch.cpu_s = max(watch.cpu_s, sum(p.cpu_s for p in procs))
        rss = sum(procfs.pss(p) for p in procs)
    if rss is not None:
        watch.peak_rss = max(watch.peak_rss, rss)
        if rss > limits.memory_mb * MiB:
            watch.memory_limit_hit = True
    # The CPU rlimit stops a single busy process first (SIGXCPU); this catches many processes.
    if watch.cpu_s >= limits.cpu_s + CPU_GRACE_S:
        watch.cpu_limit_hit = True
    # A mounted run file system enforces its size itself (the program meets ENOSPC).
    if not rundir.mounted and rundir.usage_bytes() > limits.workspace_mb * MiB:
        watch.workspace_limit_hit = True
    return watch.memory_limit_hit or watch.cpu_limit_hit or watch.workspace_limit_hit


def _kill_leader(proc: Leader):
    """Kill the started process's group and reap the leader: ``wait4``'s (pid, status, rusage)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return os.wait4(proc.pid, 0)


def _writers_gone(proc: Leader) -> bool:
    """Whether every process holding the write end of the output pipes has closed it."""
    poller = select.poll()
    for f in (proc.stdout, proc.stderr):
        poller.register(f.fileno(), select.POLLIN)
    return sum(1 for _, ev in poller.poll(0) if ev & select.POLLHUP) == 2


def _kill_all(proc: Leader, cg: RunCgroup | None, tree: procfs.Tree | None) -> None:
    """Kill whatever of the run is left after its leader is gone."""
    if cg is not None:
        cg.kill()
        return
    if tree is None:
        raise ValueError("killing a run without a cgroup needs its process tree (launcher.tree)")
    end = time.monotonic() + _SETTLE_S
    while time.monotonic() < end:
        holders = not _writers_gone(proc)  # reading every process's fds is slow: only if needed
        procs = [p for p in tree.scan(holders=holders) if p.pid != proc.pid]
        if not procs:
            return
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)


def _drain(proc: Leader, out: HeadTail, err: HeadTail, cap: int) -> None:
    """Read what is left in the pipes; stop if a writer that escaped the kill keeps them open or
    the output passes ``cap`` bytes."""
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    end = time.monotonic() + _SETTLE_S
    while streams and time.monotonic() < end and out.total + err.total <= cap:
        for fd, _ in poller.poll(100):
            chunk = os.read(fd, _PIPE_SIZE)
            if chunk:
                streams[fd].feed(chunk)
            else:
                poller.unregister(fd)
                del streams[fd]


def _account(result, proc, launcher, cg, tree, watch: _Watch, limits, rundir, out, err, gate_error) -> None:
    rc = proc.returncode
    if rc < 0:
        result.term_signal, result.exit_code = -rc, 128 - rc
    else:
        result.exit_code = rc
        if launcher.exit_carries_signal and rc > 128 and (rc - 128) in _SIGNALS:
            result.term_signal = rc - 128
    if gate_error is not None:
        detail = err.text().strip()[-2000:]
        result.error = f"the sandbox failed to start ({gate_error})" + (f": {detail}" if detail else "")
    result.timed_out = watch.timed_out
    result.startup_cpu_s = launcher.startup_cpu_s
    result.workspace_limit_hit = watch.workspace_limit_hit or (rundir.mounted and rundir.full())
    if cg is not None:
        result.cpu_s = cg.cpu_s()
        result.peak_mem_bytes, result.peak_mem_source = cg.peak_memory()
        result.oom_killed = cg.oom_kills() > 0
        result.leftover_procs = len(cg.pids())
    else:
        result.cpu_s = watch.cpu_s
        # A process killed in the middle of a long write dies when the write returns: not a leftover.
        scan = tree.scan(holders=not _writers_gone(proc))
        result.leftover_procs = len([p for p in scan if p.pid != proc.pid and not procfs.dying(p)])
    if result.peak_mem_bytes is None and watch.peak_rss:
        result.peak_mem_bytes, result.peak_mem_source = watch.peak_rss, "watcher:pss"
    result.oom_killed = result.oom_killed or watch.memory_limit_hit
    result.cpu_limit_hit = watch.cpu_limit_hit or verdicts.cpu_limit_hit(result, limits)
    result.output_limit_hit = watch.output_limit_hit
    result.stdout, result.stdout_truncated = out.text(), out.truncated
    result.stderr, result.stderr_truncated = err.text(), err.truncated
    result.fsize_limit_hit = verdicts.fsize_limit_hit(result, limits, rundir)


_SIGNALS = {s.value for s in signal.Signals}
