"""The unsafe fallback: a plain process group with rlimits, cgroups where writable, a watcher.

There is no filesystem or network isolation: the program can read anything the harness
user can (labels included) and reach the network. It reports ``isolation="none"`` and
``make_executor`` builds it only when asked with ``allow_unsafe=True``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from typing import cast

from . import procfs, program
from .base import Executor, Job, Limits, MiB, RunResult
from .cgroups import RunCgroup
from .supervise import Leader, supervise
from .workspace import RunDir

# Blocks on stdin until the supervisor has confined this process, then becomes the program.
_GATE = 'read -r _ && exec "$@" </dev/null'


class _LocalLauncher:
    wants_info = False
    confines_itself = False
    exit_carries_signal = False
    leader_is_program = True
    startup_cpu_s = 0.0
    pass_fds: tuple[int, ...] = ()

    def __init__(self, cmd: list[str]) -> None:
        self.cmd = cmd

    def argv(self, info_fd: int | None) -> list[str]:
        return ["/bin/sh", "-c", _GATE, "wmrl-gate", *self.cmd]

    def host_tasks(self, limits: Limits) -> int:
        return limits.max_procs

    def confine(self, pid: int, info: Mapping) -> list[int]:
        return [pid]

    def tree(self, pid: int, info: Mapping) -> procfs.Tree:
        return procfs.Tree([pid])

    def leader(self, proc: subprocess.Popen, info: Mapping, cg: RunCgroup | None) -> Leader:
        return cast(Leader, proc)  # the supervisor starts it with stdout and stderr piped


class LocalExecutor(Executor):
    """Runs each job as a plain subprocess in a fresh workspace (no isolation).

    Args:
        limits: default limits for jobs that carry none.
        workers: concurrent runs in ``map`` (default: CPU count).
        python: interpreter for source jobs (default: this one).
        workdir: host folder for run directories (default: the system temp dir).
        use_cgroups: set False to force the rlimit + watcher fallback.
    """

    name = "local"
    isolation = "none"

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        python: str | None = None,
        workdir: str | os.PathLike | None = None,
        use_cgroups: bool = True,
    ) -> None:
        super().__init__(limits, workers)
        self.python = python or sys.executable
        self.workdir = workdir
        self.use_cgroups = use_cgroups

    def run(self, job: Job) -> RunResult:
        limits = job.limits or self.limits
        result = RunResult(backend=self.name, isolation=self.isolation)
        rundir = RunDir(job, self.workdir, limit_bytes=limits.workspace_mb * MiB)
        try:
            if rundir.data_dir is not None:
                (rundir.workspace / "data").rmdir()
                (rundir.workspace / "data").symlink_to(rundir.data_dir, target_is_directory=True)
            env = program.environment(limits, path=program.search_path(self.python), tmp=str(rundir.tmp))
            cmd = program.command(job, self.python, str(rundir.program))
            result.host_uid, result.workspace_limit = os.getuid(), rundir.limit_kind
            supervise(_LocalLauncher(cmd), env, str(rundir.workspace), limits, rundir, result, self.use_cgroups)
            result.files, result.refused = rundir.collect(job.collect, job.collect_bytes(limits))
        finally:
            rundir.remove()
        return result
