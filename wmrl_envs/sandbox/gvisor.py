"""A backend whose runs each get a kernel of their own: gVisor's ``runsc``.

Why: bwrap and warm partition the host's kernel with namespaces and a seccomp filter, and what
that kernel keeps per inode or per host stays shared between runs: the page cache and its
fault-around, futexes on shared files, which pages of a shared file other processes map
(``smaps``), mount ids and device minors, ext4's caches, counters that only advance
(docs/security.md lists them). Under ``runsc`` a run's system calls are served by its own
Sentry, a kernel in user space with its own memory, page cache, futexes, mounts, ``/proc`` and
counters; the host kernel sees the Sentry and its file proxy (the gofer), under a seccomp filter
of gVisor's. Cost: the ptrace platform (the one that needs no virtualisation) traps every system
call, so programs start and run slower (importing numpy, pandas and scikit-learn: 5.2 s and 4.0
CPU-s against ~1.1 s on a 2-core machine; a run of ``pass`` 0.3 s). Timing is still shared: the
Sentry reads the host's page cache and runs on the host's CPUs.

The layout is bwrap's (``bwrap.bwrap_args``' inputs): ``/usr``, the interpreter and its venv
read-only, the task data read-only at ``/workspace/data``, the workspace, ``/tmp`` and
``/dev/shm`` on the run's size-limited file system, the project's folders hidden, written as an
OCI bundle. Limits: the rlimits go inside (the Sentry enforces CPU, file size, descriptors and
processes as Linux does, so a program meets SIGXCPU and EFBIG there); the run's cgroups hold the
Sentry and the gofer (memory, CPU, disk reads, everything killed at the end, and a cap on their
host threads, which grow with the program's processes); the supervisor keeps the wall limit and
the output cap. ``runsc`` runs as root; the program runs as uid 65534 inside. Every host path
is bound through a read-only host mount, as bwrap's are, so no read writes an access time.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import shutil
import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from . import cgroups, identity, procfs, program, seccomp
from .base import Job, Limits, RunResult
from .bwrap import _ETC, _TOP_LEVEL, SANDBOX_UID, BwrapExecutor
from .cgroups import RunCgroup
from .identity import Identity
from .supervise import Leader, program_rlimits
from .workspace import SANDBOX_PROGRAM, SANDBOX_WORKSPACE, RunDir

SANDBOX_USER = Identity(SANDBOX_UID, SANDBOX_UID, "nobody")
PLATFORM = "ptrace"  # needs no /dev/kvm; "kvm" did not start inside this project's VM
_GATE = 'read -r _ && exec "$0" "$@"'  # the supervisor's gate: wait on stdin until confined
# Loads a seccomp filter (hex, argv[1]) and execs argv[2:]: runsc, and the Sentry and gofer it
# starts, inherit it (seccomp.durability_program: the gofer's fsync of a host file flushed the disk).
_WITH_FILTER = """import ctypes, os, sys
code = bytes.fromhex(sys.argv[1])
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(22, 2, ctypes.byref(Prog(len(code) // 8, code)), 0, 0):  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    raise OSError(ctypes.get_errno(), "seccomp")
os.execv(sys.argv[2], sys.argv[2:])
"""
SENTRY_TASKS, SENTRY_TASKS_PER_PROC = 128, 32


def runsc_path() -> str | None:
    return shutil.which("runsc")


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None if runsc can start a sandbox here, else the reason it cannot."""
    exe = runsc_path()
    if exe is None:
        return "gVisor is not installed (apt-get install runsc)"
    if os.geteuid() != 0:
        return "runsc needs a root harness: run as root, or pick the warm or bwrap backend"
    if not any("memory" in h.controllers for h in cgroups.hierarchies()):
        return ("no writable memory cgroup: a run's memory lives in its Sentry, which only a cgroup limits; "
                "run where /sys/fs/cgroup is writable, or pick the warm or bwrap backend")
    argv = [exe, "--network=none", f"--platform={PLATFORM}", "--ignore-cgroups", "do", "/bin/true"]
    return program.trial_run(argv, "runsc", "start a sandbox", timeout=60)


def _bind(source: Path | str, dest: Path | str, writable: bool = False) -> dict:
    return {"destination": str(dest), "type": "bind", "source": str(source),
            "options": ["rbind", "rw" if writable else "ro"]}


def oci_config(rundir: RunDir, system, binds, data: Path, hide, env: Mapping[str, str], cmd: list[str],
               limits: Limits) -> dict:
    """The OCI runtime config of one run (pure). ``system``, ``binds``: ``(host source, path
    inside)`` pairs bound read-only, before and after the run's ``/tmp``."""
    mounts: list[dict] = [{"destination": "/proc", "type": "proc", "source": "proc"},
              {"destination": "/dev", "type": "tmpfs", "source": "tmpfs"}]
    mounts += [_bind(src, dest) for src, dest in system]
    mounts += [_bind(rundir.tmp, "/tmp", True), _bind(rundir.shm, "/dev/shm", True)]
    mounts += [_bind(src, dest) for src, dest in binds]
    mounts += [_bind(rundir.workspace, SANDBOX_WORKSPACE, True), _bind(data, f"{SANDBOX_WORKSPACE}/data"),
               _bind(rundir.program_dir, os.path.dirname(SANDBOX_PROGRAM))]
    for h in hide:
        mounts.append({"destination": str(h), "type": "tmpfs", "source": "tmpfs", "options": ["ro"]}
                      if h.is_dir() else _bind("/dev/null", h))
    # The Sentry counts the program's processes alone: RLIMIT_NPROC is max_procs, no host scan.
    limits_in = program_rlimits(limits) | {"RLIMIT_NPROC": (limits.max_procs,) * 2}
    caps: dict[str, list[str]] = {k: [] for k in ("bounding", "effective", "permitted", "inheritable", "ambient")}
    return {
        "ociVersion": "1.0.0",
        "process": {
            "terminal": False,
            "user": {"uid": SANDBOX_UID, "gid": SANDBOX_UID},
            "args": cmd,
            "env": [f"{k}={v}" for k, v in env.items()],
            "cwd": SANDBOX_WORKSPACE,
            "rlimits": [{"type": k, "soft": s, "hard": h} for k, (s, h) in limits_in.items()],
            "noNewPrivileges": True,
            "capabilities": caps,
        },
        "root": {"path": "rootfs", "readonly": True},
        "hostname": "sandbox",
        "mounts": mounts,
        "linux": {"namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]},
    }


def _skeleton(rootfs: Path, mounts: list[dict]) -> None:
    """The read-only root: the host's top-level links (its top-level folders are mounts, as in
    bwrap), and a mount point for every mount."""
    for d in _TOP_LEVEL:
        if os.path.islink(d):
            (rootfs / d.lstrip("/")).symlink_to(os.readlink(d))
    for m in mounts:
        point = rootfs / m["destination"].lstrip("/")
        if point.is_symlink() or point.exists():
            continue
        if m["type"] == "bind" and not Path(m["source"]).is_dir():
            point.parent.mkdir(parents=True, exist_ok=True)
            point.touch()
        else:
            point.mkdir(parents=True, exist_ok=True)


class _RunscLauncher:
    wants_info = False
    exit_carries_signal = True  # runsc exits 128 + N when the program died by signal N
    leader_is_program = False
    confines_itself = True  # rlimits and the user are set inside; the supervisor starts it as itself
    startup_cpu_s = 0.0
    pass_fds: tuple[int, ...] = ()
    seccomp_fd = None  # the program meets the Sentry, not this project's filter (RunResult.seccomp False)

    def __init__(self, rundir: RunDir, config: dict) -> None:
        top = rundir.root / "gvisor"  # not bound inside; removed with the run's folder
        self.bundle, self.state = top / "bundle", top / "state"
        (self.bundle / "rootfs").mkdir(parents=True)
        self.state.mkdir()
        _skeleton(self.bundle / "rootfs", config["mounts"])
        (self.bundle / "config.json").write_text(json.dumps(config))

    def argv(self, info_fd: int | None) -> list[str]:
        runsc = [runsc_path() or "runsc", f"--root={self.state}", "--network=none", f"--platform={PLATFORM}",
                 "--ignore-cgroups"]  # it stays in the run's groups, where the supervisor put the gate
        arch = platform.machine()
        loader = ([sys.executable, "-I", "-c", _WITH_FILTER, seccomp.durability_program(arch).hex()]
                  if arch in seccomp.ARCHES else [])
        return ["/bin/sh", "-c", _GATE, *loader, *runsc, "run", f"--bundle={self.bundle}", f"wmrl-{uuid.uuid4().hex}"]

    def host_tasks(self, limits: Limits) -> int:
        """The Sentry's host threads grow with the program's processes (on the ptrace platform ~101
        idle, ~8 a forked process, ~25 an exec'd one: 1,581 for 63 interpreters) and with its
        blocked I/O: capped, so that one run cannot take the host's pids (the seventh red team grew
        one to 867 with asynchronous reads under ``max_procs=16``)."""
        return SENTRY_TASKS_PER_PROC * limits.max_procs + SENTRY_TASKS

    def confine(self, pid: int, info: Mapping) -> list[int]:
        return [pid]  # the gate's shell: runsc, the Sentry and the gofer descend from it

    def tree(self, pid: int, info: Mapping) -> procfs.Tree:
        return procfs.Tree([pid])

    def leader(self, proc: subprocess.Popen, info: Mapping, cg: RunCgroup | None) -> Leader:
        return cast(Leader, proc)


class GvisorExecutor(BwrapExecutor):
    """Runs each job in a fresh gVisor sandbox (see the module docstring); bwrap's options.

    The program runs as uid 65534 of the sandbox's own kernel; on the host, the files it writes
    belong to 65534 and the Sentry runs unprivileged. No per-run host user is leased: the
    allowances a host user carries (pending signals, message queues) are the Sentry's own.
    """

    name = "gvisor"
    isolation = "strong"
    probe: staticmethod[[], str | None] = staticmethod(probe)

    def __init__(self, limits: Limits | None = None, workers: int | None = None, **options) -> None:
        if options.get("use_cgroups") is False:
            raise ValueError("the gvisor backend needs cgroups (use_cgroups=True): a run's memory lives in "
                             "its Sentry, which the process watcher cannot see")
        super().__init__(limits, workers, **options)

    def run(self, job: Job) -> RunResult:
        return self._run(job, SANDBOX_USER)

    def _source(self, path: Path, who: Identity | None) -> Path:
        # Always through a read-only bind on the host: the gofer opens the host's files, and a
        # read through a writable mount writes their access time, which any later run reads with
        # stat (the seventh red team carried 384 of 384 bits so); bwrap's binds are read-only.
        return identity.stage(self.workdir).readonly(path)

    def _launcher(self, options: functools.partial, env: dict[str, str], cmd: list[str], job: Job, limits: Limits,
                  who: Identity | None):
        rundir, binds, data, hide = options.args  # bwrap_args' inputs: the layout
        top = [d for d in _TOP_LEVEL if os.path.isdir(d) and not os.path.islink(d)]  # bwrap binds these too
        system = [(self._source(Path(p), who), p) for p in ("/usr", *top, *_ETC) if os.path.exists(p)]
        return _RunscLauncher(rundir, oci_config(rundir, system, binds, data, hide, env, cmd, limits))
