"""A world model that predicts each distinct program once per task.

GRPO samples many identical programs: a group draws the same program more than once, and a policy
that converges draws its favourite again every update. A world model that runs programs (the
proxy) would run each copy again for the same answer. :class:`MemoWorldModel` keys a prediction by
the program's text and the task's whole context (its content, the reward mode, the limits the env
enforces), so a copy within a batch or one seen before is not run again: it gets the first copy's
prediction, and its ``cost_s`` is the lookup, what the repeat really cost. A failed prediction
(``Prediction.failed``) is never kept, so the next copy tries again.

Why no static stage in front of the proxy (a cascade that skips the run where the static checks
are sure): they are not sure. Every one of the 46 dev-half programs static fails on a check
(p_pass <= 0.03) failed for real, but of the 14 such programs of the corpus's fresh test half only 7
did, and 6 earned a reward. A try/except around an optional import, a name in a function never
called or a read guarded by ``os.path.exists`` fail its checks while the program runs. The proxy
already answers a program that does not parse without running it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.world_models.base import Prediction, WorldModel, predict_batch


class MemoWorldModel:
    """``inner`` behind a table of its predictions, keyed by program and task context.

    Args:
        inner: the world model to ask on a miss (its ``predict_batch`` where it has one).
        capacity: predictions kept (least recently used dropped first).
    """

    def __init__(self, inner: WorldModel, capacity: int = 100_000) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive int (predictions kept), got {capacity!r}")
        self.inner, self.capacity = inner, capacity
        self._table: OrderedDict[str, Prediction] = OrderedDict()
        self.hits = self.misses = 0
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=threading.Lock())

    def __getattr__(self, name: str) -> Any:  # setup_s, executor, ... of the inner model
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def close(self) -> None:
        """Close the inner model (where it has ``close``)."""
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        """Predictions in input order; each distinct (context, program) of the batch not in the
        table goes to ``inner`` once, in one batch."""
        start = time.thread_time()
        keys = [prediction_key(c, a) for c, a in zip(contexts, actions, strict=True)]
        todo: dict[str, int] = {}
        with self._lock:
            for i, k in enumerate(keys):
                if k not in self._table and k not in todo:
                    todo[k] = i
        lookup = (time.thread_time() - start) / max(1, len(keys))
        fresh = dict(zip(todo, predict_batch(self.inner, [contexts[i] for i in todo.values()],
                                             [actions[i] for i in todo.values()])))
        out = []
        with self._lock:
            for i, k in enumerate(keys):
                if k in todo and todo[k] == i:
                    out.append(fresh[k])
                    self.misses += 1
                    continue
                known = fresh.get(k) or self._table[k]  # a failed first copy is not kept, but shared
                self.hits += 1
                out.append(dataclasses.replace(known, checks=dict(known.checks), cost_s=lookup,
                                               feedback=known.feedback + " (predicted before: not run again)"))
                if k in self._table:
                    self._table.move_to_end(k)
            for k, pred in fresh.items():
                if pred.failed is None:
                    self._table[k] = pred
            while len(self._table) > self.capacity:
                self._table.popitem(last=False)
        return out


def prediction_key(context: Mapping[str, Any], action: Any) -> str:
    """The program's text and the whole task context, hashed."""
    blob = json.dumps([dict(context), action], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()
