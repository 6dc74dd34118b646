"""The Ray backend: each job is a Ray task that runs the same sandbox on whichever node has room.

A task asks for one CPU and the job's memory limit, so Ray's scheduler does the admission
control. On the node it runs under a node-local backend (bwrap by default), so isolation is
the same as on one machine; the result, with the collected files, comes back to the driver,
which keeps the labels and does the grading. Every node needs bubblewrap, the same venv path
and the task's public data at the same path.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .base import Executor, Job, Limits, MiB, RunResult

# Time beyond a job's wall limit for scheduling, worker start-up and transfers.
SCHEDULING_MARGIN_S = 120.0


def _run_on_node(backend: str, options: dict[str, Any], limits: Limits, job: Job) -> RunResult:
    from .factory import make_executor

    ex = make_executor(backend, limits, workers=1, allow_unsafe=backend == "local", **options)
    return ex.run(job)


def probe() -> str | None:
    try:
        import ray  # noqa: F401  optional extra: wmrl[ray]
    except ImportError:
        return "ray is not installed (pip install 'wmrl[ray]')"
    return None


class RayExecutor(Executor):
    """Runs jobs as Ray tasks (``num_cpus=1``, ``memory`` = the job's memory limit).

    Args:
        limits: default limits for jobs that carry none.
        workers: ignored by Ray's scheduling; kept for the common signature.
        backend: the sandbox each node uses (``"bwrap"``; ``"local"`` only for tests).
        address: a Ray cluster address; None connects to or starts a local instance.
        init_kwargs: extra ``ray.init`` arguments when this executor starts Ray.
        **backend_options: passed to the node's backend (e.g. ``hide=``).
    """

    name = "ray"
    probe = staticmethod(probe)

    def __init__(
        self,
        limits: Limits | None = None,
        workers: int | None = None,
        *,
        backend: str = "bwrap",
        address: str | None = None,
        init_kwargs: dict[str, Any] | None = None,
        **backend_options: Any,
    ) -> None:
        super().__init__(limits, workers)
        reason = probe()
        if reason is not None:
            raise RuntimeError(f"ray backend unavailable: {reason}")
        import ray

        if not ray.is_initialized():
            ray.init(address=address, **(init_kwargs or {}))
        self._ray = ray
        self._task = ray.remote(_run_on_node)
        self.backend, self.backend_options = backend, backend_options
        self.isolation = "none" if backend == "local" else "strong"

    def _submit(self, job: Job):
        limits = job.limits or self.limits
        task = self._task.options(num_cpus=1, memory=limits.memory_mb * MiB)
        return task.remote(self.backend, self.backend_options, limits, job), limits

    def _collect(self, ref, limits: Limits) -> RunResult:
        try:
            result = self._ray.get(ref, timeout=limits.wall_s + SCHEDULING_MARGIN_S)
        except self._ray.exceptions.GetTimeoutError:
            self._ray.cancel(ref, force=True)
            return RunResult(
                backend=f"{self.name}+{self.backend}",
                isolation=self.isolation,
                timed_out=True,
                error="the Ray task did not finish in time (cluster busy?)",
            )
        except self._ray.exceptions.RayError as e:
            return RunResult(backend=f"{self.name}+{self.backend}", isolation=self.isolation, error=str(e))
        result.backend = f"{self.name}+{result.backend}"
        return result

    def run(self, job: Job) -> RunResult:
        return self._collect(*self._submit(job))

    def map(self, jobs: Iterable[Job]) -> Iterator[RunResult]:
        """Submit every job at once (Ray queues what does not fit) and yield in input order.

        Each result may take its wall limit plus a margin after the previous one arrived.
        """
        submitted = [self._submit(job) for job in jobs]
        for ref, limits in submitted:
            yield self._collect(ref, limits)
