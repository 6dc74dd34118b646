"""The sandbox contract shared by every backend: limits, a job, a result, an executor."""

from __future__ import annotations

import abc
import dataclasses
import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed run.

    Args:
        wall_s: wall-clock seconds before the whole process tree is killed.
        cpu_s: CPU seconds: one process gets SIGXCPU at this limit (rlimit); the run's
            total over all processes is killed just past it (cgroup or /proc accounting).
        memory_mb: resident memory of the run, no swap; past it the kernel OOM-kills (or,
            without a memory cgroup, the watcher kills on proportional set size).
        max_procs: processes/threads the run may hold at once.
        file_mb: largest single file the program may write (EFBIG past it); also the
            largest collected file.
        workspace_mb: total bytes the program may hold in its workspace, /tmp and /dev/shm
            together (a size-limited mount where the harness may mount, else a watcher).
        output_bytes: stdout and stderr are each kept to this many bytes (head + tail).
        output_mb: stdout and stderr together may carry this many MB; a run that writes more is
            killed (``output_limit_hit``). The harness reads every byte a run writes, on CPU no
            run is charged for, so this bounds it.
        disk_read_mbps, disk_read_iops: reads of the host's disks (the read-only binds, buffered or
            ``O_DIRECT``), capped per run where an I/O cgroup controller is writable
            (``RunResult.uncharged`` says where not).
        threads: BLAS/OpenMP threads the program is told to use, and the CPU quota (in
            cores) of its cgroup, so one program cannot starve concurrent ones.
    """

    wall_s: float = 600.0
    cpu_s: float = 600.0
    memory_mb: int = 4096
    max_procs: int = 64
    file_mb: int = 512
    workspace_mb: int = 1024
    output_bytes: int = 64 * 1024
    output_mb: int = 64
    disk_read_mbps: int = 256
    disk_read_iops: int = 4096
    threads: int = 1

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0:
                raise ValueError(f"Limits.{f.name} must be a positive number, got {v!r}")


@dataclass(frozen=True)
class Job:
    """One program to run: Python source (``code``) or an explicit ``argv``.

    The program's working directory is a fresh workspace holding ``data/`` (``data_dir``
    mounted read-only). After the run, the files named in ``collect`` (relative to the
    workspace) are copied out into ``RunResult.files``, each size-checked by ``st_size`` against
    ``collect_max_bytes`` before it is read; files left out are named in ``RunResult.refused``.
    """

    code: str | None = None
    argv: tuple[str, ...] | None = None
    data_dir: str | Path | None = None
    collect: tuple[str, ...] = ("submission.csv",)
    limits: Limits | None = None  # None: the executor's limits
    name: str = "job"
    collect_max_bytes: int | None = None  # largest file copied out (None: limits.file_mb)

    def __post_init__(self) -> None:
        if (self.code is None) == (self.argv is None):
            raise ValueError("Job needs exactly one of code= (Python source) or argv=")
        if self.code is not None and not isinstance(self.code, str):
            raise ValueError(f"Job.code must be a str, got {type(self.code).__name__}")
        if self.argv is not None and (isinstance(self.argv, str) or not self.argv):
            raise ValueError("Job.argv must be a non-empty sequence of strings, e.g. ('python', 'run.py')")
        if self.data_dir is not None and not Path(self.data_dir).is_dir():
            raise ValueError(
                f"Job.data_dir {str(self.data_dir)!r} is not a directory: pass the task's public folder"
            )
        if self.collect_max_bytes is not None and not (
            isinstance(self.collect_max_bytes, int) and self.collect_max_bytes > 0
        ):
            raise ValueError(f"Job.collect_max_bytes must be a positive int, got {self.collect_max_bytes!r}")
        for name in self.collect:
            parts = PurePosixPath(name).parts
            if not parts or parts[0] == "/" or ".." in parts:
                raise ValueError(f"Job.collect entry {name!r} must be a relative path inside the workspace")

    def collect_bytes(self, limits: Limits) -> int:
        """The largest file copied out under ``limits``."""
        cap = limits.file_mb * MiB
        return min(cap, self.collect_max_bytes) if self.collect_max_bytes else cap


@dataclass
class RunResult:
    """What happened to one sandboxed run.

    ``exit_code`` follows the shell: 128 + N when the program died by signal N (then also
    ``term_signal``). ``cpu_s`` is the run's own CPU; ``startup_cpu_s`` is CPU spent outside the run
    on its behalf: under the warm backend, the zygote's CPU since the previous run charged (its
    start-up imports on the first run it serves, then its clones), so that summing both over the
    runs counts every CPU-second. ``peak_mem_source`` names where ``peak_mem_bytes`` was read (a cgroup
    file, ``rusage``, or ``watcher:pss`` sampled every 0.1 s). ``leftover_procs`` counts the
    run's processes still alive after the harness's final kill (0 unless something escaped).
    """

    backend: str
    isolation: str  # "strong" (namespaces / container), "none" (plain process)
    exit_code: int | None = None
    term_signal: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    cpu_limit_hit: bool = False
    fsize_limit_hit: bool = False
    workspace_limit_hit: bool = False
    output_limit_hit: bool = False  # killed for writing more than ``Limits.output_mb`` to stdout and stderr
    wall_s: float = 0.0
    cpu_s: float | None = None
    startup_cpu_s: float = 0.0  # shared start-up CPU charged to this run (the warm zygote's), beside cpu_s
    peak_mem_bytes: int | None = None
    peak_mem_source: str | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    leftover_procs: int = 0
    host_uid: int | None = None  # the host user the program ran as (never 0 in bwrap)
    seccomp: bool = False  # the syscall filter (``seccomp.py``) was installed for the program
    workspace_limit: str = "watcher"  # "mount": kernel-enforced size; "watcher": polled usage
    uncharged: str = ""  # what the run makes the kernel hold or do that no limit here charges to it
    files: dict[str, bytes] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # collected name -> why it was left out
    error: str | None = None  # harness-side problem (backend failed to start, ...)

    @property
    def ok(self) -> bool:
        """The program exited 0 and hit no limit."""
        return (
            self.exit_code == 0
            and self.error is None
            and not (self.timed_out or self.oom_killed or self.cpu_limit_hit or self.output_limit_hit)
        )

    def to_dict(self, with_files: bool = False) -> dict:
        d = dataclasses.asdict(self)
        files = d.pop("files")
        d["files"] = (
            {k: v.decode("utf-8", "replace") for k, v in files.items()}
            if with_files
            else {k: len(v) for k, v in files.items()}
        )
        return d


class Executor(abc.ABC):
    """Runs jobs in a sandbox.

    ``run`` runs one job in the calling thread (thread-safe). ``submit`` queues a job and returns
    its future: at most ``workers`` submitted jobs run at once, however many threads or env
    copies submit, so throughput follows the executor's workers. ``map`` submits a batch.
    """

    name: str = "base"
    isolation: str = "strong"

    def __init__(self, limits: Limits | None = None, workers: int | None = None) -> None:
        self.limits = limits or Limits()
        self.workers = workers or os.cpu_count() or 1
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def __getstate__(self) -> dict:  # a copy (gym.make copies its kwargs) gets its own workers
        return {k: v for k, v in self.__dict__.items() if k not in ("_pool", "_pool_lock")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _pool=None, _pool_lock=threading.Lock())

    @staticmethod
    def probe() -> str | None:
        """None if this backend works on this machine, else the reason it does not."""
        return None

    @abc.abstractmethod
    def run(self, job: Job) -> RunResult: ...

    def submit(self, job: Job) -> Future[RunResult]:
        """Queue ``job``; it starts when one of the ``workers`` slots is free."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix=f"wmrl-{self.name}")
            return self._pool.submit(self.run, job)

    def map(self, jobs: Iterable[Job]) -> Iterator[RunResult]:
        """Submit every job at once, yielding results in input order."""
        futures = [self.submit(job) for job in jobs]
        for future in futures:
            yield future.result()

    def close(self) -> None:
        """Release backend resources (the worker threads; subclasses: containers, clients)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
