"""The default backend: bubblewrap namespaces, a seccomp filter, cgroup limits, and no host root.

Every namespace is unshared (no network but a private loopback; a private pid space whose
death takes every process with it) and creating nested user namespaces is disabled. When the
harness is root, bwrap runs as the unprivileged sandbox user (``identity.py``), so the program's
uid maps onto that user: host files, ``/proc/sys`` and per-user kernel limits treat it as such.
The seccomp filter (``seccomp.py``) closes keyrings, io_uring, bpf, ptrace, mounts and the other
interfaces listed there. The program sees a read-only ``/usr``, the interpreter and its venv
read-only at their host paths, the task data read-only at ``/workspace/data``, its writable
workspace and private ``/tmp`` and ``/dev/shm`` (one size-limited file system: ``workspace.py``),
and nothing else of the host: labels and other tasks are simply not there.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

from . import hidden, identity, procfs, program, seccomp
from .base import Executor, Job, Limits, MiB, RunResult
from .cgroups import RunCgroup
from .identity import Identity
from .supervise import Leader, supervise
from .workspace import SANDBOX_PROGRAM, SANDBOX_WORKSPACE, RunDir, default_base

log = logging.getLogger(__name__)

SANDBOX_UID = 65534
_TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")
# Host-wide counters a run can move and another read (file-nr moves by the descriptors a
# concurrent run opens, pty/nr by its terminals, aio-nr by its contexts, ext4's es_shrinker_info by
# its lookups in shared files): hidden under empty read-only folders. No library reads them.
HOST_COUNTERS = ("/proc/sys/fs", "/proc/sys/kernel/pty", "/proc/fs")
# Unreadable (the host's /dev/null bound over them; the sandbox's /dev is its own): the sandbox
# user's keyrings, every run's (a warm run's session keyring counts its processes), the host's
# fingerprint (its boot id and kernel command line), the host's cgroup counts (how many runs are
# in flight), and the terminal multiplexer: ptys come from one host-wide allowance (kernel.pty.max),
# which a run holding 3,000 of them took from its neighbours and every container on the host.
HOST_FILES = ("/proc/keys", "/proc/key-users", "/proc/sys/kernel/random/boot_id", "/proc/cmdline", "/proc/cgroups",
              "/dev/pts/ptmx")
# pid 1's memory and environment (bound over while bwrap, setting up, is pid 1 itself): pid 1 runs
# as the program's user and is dumpable, and a cold run's pid 1, bwrap, still held the host's mount
# table it parsed and the names of other runs' folders in its heap (the fifth red team; the sixth
# read them through pid 1's task folder).
PID1_FILES = ("/proc/1/mem", "/proc/1/environ", "/proc/1/task/1/mem", "/proc/1/task/1/environ")


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None if bwrap can build this sandbox here, else the reason it cannot."""
    exe = bwrap_path()
    if exe is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    argv = [exe, "--unshare-all", "--unshare-user", "--disable-userns", "--ro-bind", "/usr", "/usr"]
    argv += _top_level_args() + ["--", "/usr/bin/true"]
    return program.trial_run(argv, "bubblewrap", "create namespaces", timeout=30)


def _top_level_args() -> list[str]:
    args: list[str] = []
    for d in _TOP_LEVEL:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


def bwrap_args(
    rundir: RunDir,
    binds: Sequence[tuple[Path, Path]],
    data: Path,
    hide: Sequence[Path],
    info_fd: int | None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The bubblewrap options for one run (everything before ``--`` and the command).

    ``binds`` are ``(host source, path inside)`` pairs, bound read-only in order (a source may be
    a staged copy of the path it stands for; a later bind may replace part of an earlier one).
    ``data`` is bound read-only at ``/workspace/data``, after the workspace it sits in.
    """
    a = [bwrap_path() or "bwrap"]
    a += ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent"]
    a += ["--new-session", "--cap-drop", "ALL", "--hostname", "sandbox"]
    a += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    if info_fd is not None:
        a += ["--info-fd", str(info_fd)]
    if seccomp_fd is not None:
        a += ["--seccomp", str(seccomp_fd)]
    a += ["--block-fd", "0"]  # the supervisor's gate: wait on stdin until confined
    a += ["--ro-bind", "/usr", "/usr", *_top_level_args()]
    for f in _ETC:
        a += ["--ro-bind-try", f, f]
    a += ["--proc", "/proc", "--dev", "/dev"]
    for d in HOST_COUNTERS:
        a += ["--tmpfs", d, "--remount-ro", d]
    for f in (*HOST_FILES, *PID1_FILES):
        a += ["--ro-bind", "/dev/null", f]
    a += ["--bind", str(rundir.tmp), "/tmp", "--bind", str(rundir.shm), "/dev/shm"]
    a += ["--remount-ro", "/dev"]  # its own tmpfs has no size; /dev/shm and the device nodes stay writable
    for src, dest in binds:
        a += ["--ro-bind", str(src), str(dest)]
    a += ["--bind", str(rundir.workspace), SANDBOX_WORKSPACE]
    a += ["--ro-bind", str(data), f"{SANDBOX_WORKSPACE}/data"]
    a += ["--ro-bind", str(rundir.program_dir), os.path.dirname(SANDBOX_PROGRAM)]
    for h in hide:
        a += ["--tmpfs", str(h)] if h.is_dir() else ["--ro-bind", "/dev/null", str(h)]
    a += ["--remount-ro", "/", "--chdir", SANDBOX_WORKSPACE, "--clearenv"]
    return a


class _BwrapLauncher:
    wants_info = True
    exit_carries_signal = True
    leader_is_program = False
    confines_itself = False
    startup_cpu_s = 0.0

    def __init__(self, options: functools.partial, env: Mapping[str, str], cmd: list[str]) -> None:
        self.options, self.env, self.cmd = options, env, cmd
        self.seccomp_fd = seccomp.filter_fd()
        self.pass_fds = () if self.seccomp_fd is None else (self.seccomp_fd,)

    def argv(self, info_fd: int | None) -> list[str]:
        a = self.options(info_fd=info_fd, seccomp_fd=self.seccomp_fd)
        for k, v in self.env.items():
            a += ["--setenv", k, v]
        return a + ["--", *self.cmd]

    def host_tasks(self, limits: Limits) -> int:
        return limits.max_procs

    def confine(self, pid: int, info: Mapping) -> list[int]:
        # The sandbox's init: everything the program starts descends from it. The outer
        # bwrap only waits for it and is killed by process group.
        child = info.get("child-pid")
        return [int(child)] if child else []

    def tree(self, pid: int, info: Mapping) -> procfs.Tree:
        roots = [pid] + ([int(info["child-pid"])] if info.get("child-pid") else [])
        return procfs.Tree(roots, pidns=info.get("pid-namespace"))

    def leader(self, proc: subprocess.Popen, info: Mapping, cg: RunCgroup | None) -> Leader:
        return cast(Leader, proc)  # the supervisor starts it with stdout and stderr piped


class BwrapExecutor(Executor):
    """Runs each job in a fresh bubblewrap sandbox (see the module docstring).

    Args:
        limits: default limits for jobs that carry none.
        workers: concurrent sandboxes in ``map`` (default: CPU count).
        python: interpreter for source jobs (default: this one; its prefix and venv are
            bound read-only so numpy, pandas, scipy and scikit-learn import inside).
        hide: extra host paths to mask inside the sandbox. Always masked: this project's
            packages, and the data files of the packages offline tasks are built from
            (``hidden.DATASET_PACKAGES``: those stay importable, their data is gone).
        workdir: host folder for run directories (default: ``/dev/shm``, else the temp dir).
        use_cgroups: set False to force the rlimit + watcher fallback.
        use_mounts: set False to force the watcher for the byte limit (as a harness that may
            not mount gets).
    """

    name = "bwrap"
    isolation = "strong"
    probe: staticmethod[[], str | None] = staticmethod(probe)

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        python: str | None = None,
        hide: Sequence[str | os.PathLike] = (),
        workdir: str | os.PathLike | None = None,
        use_cgroups: bool = True,
        use_mounts: bool = True,
    ) -> None:
        super().__init__(limits, workers)
        reason = self.probe()
        if reason is not None:
            raise RuntimeError(f"{self.name} backend unavailable: {reason}")
        self.python = python or sys.executable
        self.roots = program.interpreter_roots(self.python)

        def visible(p: Path) -> bool:  # only what is bound inside needs masking
            return p.exists() and any(p.is_relative_to(b) for b in self.roots)

        self.hide = [h for h in (Path(x).resolve() for x in [*hidden.project_dirs(), *hide]) if visible(h)]
        self.workdir = workdir or default_base() or tempfile.gettempdir()
        self.use_cgroups, self.use_mounts = use_cgroups, use_mounts
        self.identity = identity.sandbox_identity()
        if self.identity is not None and not identity.reachable(Path(self.workdir), self.identity):
            raise ValueError(
                f"the sandbox folder {self.workdir} is not reachable by the sandbox user "
                f"{self.identity.name} (uid {self.identity.uid}): pass workdir= (or set "
                "WMRL_SANDBOX_DIR to) a folder every user may traverse, e.g. /dev/shm or /var/tmp"
            )
        data = [d for d in hidden.dataset_dirs() if visible(d)]
        self._code_only = hidden.code_only_copies(data, base=self.workdir)

    def _source(self, path: Path, who: Identity | None) -> Path:
        """Where bwrap, running as ``who``, can find ``path`` (staged if it cannot reach it)."""
        if who is None:
            return path
        return identity.stage(self.workdir).path_for(path, who)

    def _binds(self, who: Identity | None) -> list[tuple[Path, Path]]:
        return [(self._source(r, who), r) for r in self.roots] + list(self._code_only.binds)

    def _launcher(self, options: functools.partial, env: dict[str, str], cmd: list[str], job: Job, limits: Limits,
                  who: Identity | None):
        return _BwrapLauncher(options, env, cmd)

    def run(self, job: Job) -> RunResult:
        with identity.lease() as who:  # a host user no other run in flight has (identity.py)
            return self._run(job, who)

    def _run(self, job: Job, who: Identity | None) -> RunResult:
        limits = job.limits or self.limits
        result = RunResult(backend=self.name, isolation=self.isolation)
        size = limits.workspace_mb * MiB if self.use_mounts else None
        rundir = RunDir(job, self.workdir, owner=who, limit_bytes=size)
        try:
            env = program.environment(limits, path=program.search_path(self.python), tmp="/tmp")
            cmd = program.command(job, self.python, SANDBOX_PROGRAM)
            data = self._source(rundir.data_dir, who) if rundir.data_dir else rundir.workspace / "data"
            options = functools.partial(bwrap_args, rundir, self._binds(who), data, self.hide)
            launcher = self._launcher(options, env, cmd, job, limits, who)
            result.seccomp = launcher.seccomp_fd is not None
            result.host_uid = who.uid if who else os.getuid()
            result.workspace_limit = rundir.limit_kind
            supervise(launcher, {"PATH": "/usr/bin:/bin"}, None, limits, rundir, result, self.use_cgroups, who)
            result.files, result.refused = rundir.collect(job.collect, job.collect_bytes(limits))
        finally:
            rundir.remove()
        return result
