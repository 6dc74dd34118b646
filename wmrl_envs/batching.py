"""Coalescing: the calls of many threads served by one batched call.

Episodes run in threads (one per env copy), and each asks for one thing at a time: a world-model
prediction, a generated completion. A model serves a batch far faster than the same items one by
one, so :class:`Coalescer` queues every caller's items and lets one caller at a time run the batched
function on everything queued; callers that arrive while a batch runs are served together by the
next one. One batch is in flight at a time, so the model (or its server) sees bounded concurrency.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class _Job(Generic[T, R]):
    """One caller's items, filled in by whichever caller runs their batch."""

    def __init__(self, items: list[T]) -> None:
        self.items = items
        self.results: list[R] = []
        self.error: BaseException | None = None
        self.done = False


class Coalescer(Generic[T, R]):
    """``coalescer(items) == fn(items)``, with concurrent callers' items batched into one ``fn`` call.

    Args:
        fn: the batched function: a list of items in, one result per item out, in order.
        lock: held while a batch runs (default: a new lock); pass a model's own lock so that
            batches never overlap its other uses (e.g. a training step).
        max_batch: the most items one ``fn`` call gets (None: all queued); a caller's items are
            never split, so a single larger call still runs whole.
        window_s: how long the caller that starts a batch waits for others to join it.

    ``batches`` and ``items`` count the ``fn`` calls and the items they served.
    """

    def __init__(self, fn: Callable[[list[T]], Sequence[R]], lock: threading.Lock | threading.RLock | None = None,
                 max_batch: int | None = None, window_s: float = 0.0) -> None:
        if max_batch is not None and int(max_batch) < 1:
            raise ValueError(f"max_batch must be a positive number of items, got {max_batch}")
        if window_s < 0:
            raise ValueError(f"window_s must be >= 0 seconds, got {window_s}")
        self.fn = fn
        self.max_batch = None if max_batch is None else int(max_batch)
        self.window_s = float(window_s)
        self.batches = 0
        self.items = 0
        self._lock = lock if lock is not None else threading.Lock()
        self._queue: list[_Job[T, R]] = []
        self._queue_lock = threading.Lock()

    def __call__(self, items: Sequence[T]) -> list[R]:
        job: _Job[T, R] = _Job(list(items))
        if not job.items:
            return []
        with self._queue_lock:
            self._queue.append(job)
        while not job.done:
            with self._lock:
                if not job.done:
                    if self.window_s:
                        time.sleep(self.window_s)  # under the lock: later callers queue up meanwhile
                    self._run(self._take())
        if job.error is not None:
            raise job.error
        return job.results

    def _take(self) -> list[_Job[T, R]]:
        """The queued jobs of the next batch, oldest first (at least one)."""
        with self._queue_lock:
            taken: list[_Job[T, R]] = []
            size = 0
            while self._queue and (not taken or self.max_batch is None or size + len(self._queue[0].items) <= self.max_batch):
                job = self._queue.pop(0)
                taken.append(job)
                size += len(job.items)
            return taken

    def _run(self, jobs: list[_Job[T, R]]) -> None:
        items = [item for job in jobs for item in job.items]
        try:
            results = list(self.fn(items))
            if len(results) != len(items):
                raise RuntimeError(f"the batched function returned {len(results)} results for {len(items)} items")
        except BaseException as e:  # every caller of the batch raises it
            for job in jobs:
                job.error, job.done = e, True
            return
        self.batches += 1
        self.items += len(items)
        for job in jobs:
            job.results, results = results[: len(job.items)], results[len(job.items):]
            job.done = True
