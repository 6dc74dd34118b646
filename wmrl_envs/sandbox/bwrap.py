"""The default backend: bubblewrap namespaces plus cgroup limits.

Every namespace is unshared (no network but a private loopback; a private pid space whose
death takes every process with it) and creating nested user namespaces is disabled. The
program sees a read-only ``/usr``, the interpreter and its venv read-only at their host paths,
the task data read-only at ``/workspace/data``, a private size-capped ``/tmp`` and its writable
workspace, and nothing else of the host: labels and other tasks are simply not there.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import hidden, procfs, program
from .base import Executor, Job, Limits, MiB, RunResult
from .supervise import supervise
from .workspace import SANDBOX_PROGRAM, SANDBOX_WORKSPACE, RunDir, default_base

log = logging.getLogger(__name__)

SANDBOX_UID = 65534
_TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")


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
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap failed to run: {e}"
    if p.returncode != 0:
        return f"bubblewrap cannot create namespaces here: {p.stderr.strip()}"
    return None


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
    limits: Limits,
    binds: Sequence[Path],
    hide: Sequence[Path],
    info_fd: int | None,
    replace: Sequence[tuple[Path, Path]] = (),
) -> list[str]:
    """The bubblewrap options for one run (everything before ``--`` and the command)."""
    a = [bwrap_path() or "bwrap"]
    a += ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent"]
    a += ["--new-session", "--cap-drop", "ALL", "--hostname", "sandbox"]
    a += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    if info_fd is not None:
        a += ["--info-fd", str(info_fd)]
    a += ["--block-fd", "0"]  # the supervisor's gate: wait on stdin until confined
    # A tmpfs hides what was bound below it before, so /tmp comes before the binds.
    a += ["--ro-bind", "/usr", "/usr", *_top_level_args()]
    for f in _ETC:
        a += ["--ro-bind-try", f, f]
    a += ["--proc", "/proc", "--dev", "/dev"]
    a += ["--size", str(limits.workspace_mb * MiB), "--tmpfs", "/tmp"]
    a += ["--size", str(limits.workspace_mb * MiB), "--tmpfs", "/dev/shm"]
    for b in binds:
        a += ["--ro-bind", str(b), str(b)]
    a += ["--bind", str(rundir.workspace), SANDBOX_WORKSPACE]
    data = rundir.data_dir or rundir.workspace / "data"
    a += ["--ro-bind", str(data), f"{SANDBOX_WORKSPACE}/data"]
    a += ["--ro-bind", str(rundir.program_dir), os.path.dirname(SANDBOX_PROGRAM)]
    for copy, original in replace:
        a += ["--ro-bind", str(copy), str(original)]
    for h in hide:
        a += ["--tmpfs", str(h)] if h.is_dir() else ["--ro-bind", "/dev/null", str(h)]
    a += ["--remount-ro", "/", "--chdir", SANDBOX_WORKSPACE, "--clearenv"]
    return a


class _BwrapLauncher:
    wants_info = True
    exit_carries_signal = True
    leader_is_program = False

    def __init__(self, options: functools.partial, env: Mapping[str, str], cmd: list[str]) -> None:
        self.options, self.env, self.cmd = options, env, cmd

    def argv(self, info_fd: int | None) -> list[str]:
        a = self.options(info_fd=info_fd)
        for k, v in self.env.items():
            a += ["--setenv", k, v]
        return a + ["--", *self.cmd]

    def confine(self, pid: int, info: Mapping) -> list[int]:
        # The sandbox's init: everything the program starts descends from it. The outer
        # bwrap only waits for it and is killed by process group.
        child = info.get("child-pid")
        return [int(child)] if child else []

    def tree(self, pid: int, info: Mapping) -> procfs.Tree:
        roots = [pid] + ([int(info["child-pid"])] if info.get("child-pid") else [])
        return procfs.Tree(roots, pidns=info.get("pid-namespace"))


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
        workdir: host folder for run directories (default: the system temp dir).
        use_cgroups: set False to force the rlimit + watcher fallback.
    """

    name = "bwrap"
    isolation = "strong"
    probe = staticmethod(probe)

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        python: str | None = None,
        hide: Sequence[str | os.PathLike] = (),
        workdir: str | os.PathLike | None = None,
        use_cgroups: bool = True,
    ) -> None:
        super().__init__(limits, workers)
        reason = probe()
        if reason is not None:
            raise RuntimeError(f"bwrap backend unavailable: {reason}")
        self.python = python or sys.executable
        self.binds = program.interpreter_roots(self.python)
        def visible(p: Path) -> bool:  # only what is bound inside needs masking
            return p.exists() and any(p.is_relative_to(b) for b in self.binds)

        self.hide = [h for h in (Path(x).resolve() for x in [*hidden.project_dirs(), *hide]) if visible(h)]
        self.workdir = workdir
        self.use_cgroups = use_cgroups
        data = [d for d in hidden.dataset_dirs() if visible(d)]
        self._code_only = hidden.code_only_copies(data, base=workdir or default_base())

    def run(self, job: Job) -> RunResult:
        limits = job.limits or self.limits
        result = RunResult(backend=self.name, isolation=self.isolation)
        rundir = RunDir(job, self.workdir)
        try:
            env = program.environment(limits, path=program.search_path(self.python), tmp="/tmp")
            cmd = program.command(job, self.python, SANDBOX_PROGRAM)
            options = functools.partial(
                bwrap_args, rundir, limits, self.binds, self.hide, replace=self._code_only.binds
            )
            launcher = _BwrapLauncher(options, env, cmd)
            supervise(launcher, {"PATH": "/usr/bin:/bin"}, None, limits, rundir, result, self.use_cgroups)
            result.files = rundir.collect(job.collect, limits.file_mb * MiB)
        finally:
            rundir.remove()
        return result
