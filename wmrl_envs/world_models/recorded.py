"""A world model whose predictions are recorded facts, served again at their recorded cost.

A world model whose prediction depends only on the task and the program (the static checks) gives
a program one prediction; its *cost* is a measurement, and a measurement follows the machine's
load: the static model's seconds grew 2.6x on one seed when two simulator processes and a test run
shared the machine. ``wmrl compare --match-compute`` trains a WMRL arm until its compute reaches a
share of real's, so a load-dependent cost moved the update an arm stopped at (57 updates on an
idle machine, 56 under load) and the same seed, code and outcome table gave another score.
Recorded, a prediction is measured once; every later ask (a repeat in this run, another arm's,
another seed's, a replay's) is served from the table and charged the recorded cost, as
:mod:`wmrl_envs.replay` does for real executions: reuse never looks cheaper, and a live run and
its replay charge the same.

    key = tag : sha256(task context, program)

``tag`` names the model and the code that predicts (the spec and a hash of ``wmrl_envs``' source),
so another model or another version never serves a stale prediction. A failed prediction is not
recorded (the next ask tries again). Only models whose prediction is a fact of (task, program) may
be recorded: not a model that learns from anchors during the run, an LLM that samples, or the
proxy, whose verdicts include runs stopped by limits on a busy machine.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wmrl_envs.replay import OutcomeStore
from wmrl_envs.world_models.base import Prediction, Verdict, WorldModel, predict_batch
from wmrl_envs.world_models.memo import prediction_key


@functools.cache
def source_hash(*packages: str) -> str:
    """A hash of the source of ``packages`` (folders beside ``wmrl_envs``): the code version."""
    h = hashlib.sha256()
    top = Path(__file__).resolve().parents[2]
    for package in packages:
        for path in sorted((top / package).rglob("*.py")):
            h.update(str(path.relative_to(top)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


class RecordedWorldModel:
    """``inner`` behind a shared table of its predictions (:class:`~wmrl_envs.replay.OutcomeStore`).

    Args:
        inner: a world model whose prediction depends only on the task context and the program.
        store: the table (one JSON-lines file, shared by processes).
        tag: what predicts: model and code version; part of every key.
    """

    def __init__(self, inner: WorldModel, store: OutcomeStore, tag: str) -> None:
        self.inner, self.store, self.tag = inner, store, tag

    def __getattr__(self, name: str) -> Any:  # setup_s, close, ... of the inner model
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        """Predictions in input order: recorded ones from the table, the rest from ``inner`` (each
        distinct one once, recorded before it is returned, and returned as recorded). A key another
        thread is predicting is waited for and read from the table."""
        keys = [f"{self.tag}:{prediction_key(c, a)}" for c, a in zip(contexts, actions, strict=True)]
        out: dict[str, Prediction] = {}
        todo: dict[str, int] = {}
        waits: dict[str, threading.Event] = {}
        for i, k in enumerate(keys):
            if k in out or k in todo or k in waits:
                continue
            rec = self.store.get(k)
            event = None if rec is not None else self.store.claim(k)
            if rec is not None:
                out[k] = _load(rec)
            elif event is None:
                todo[k] = i
            else:
                waits[k] = event
        if todo:
            self._predict(todo, contexts, actions, out)
        for k, event in waits.items():
            event.wait()
            rec = self.store.get(k)
            if rec is not None:
                out[k] = _load(rec)
        failed = {k: keys.index(k) for k in waits if k not in out}  # failed in the other thread: asked here
        if failed:
            fresh = predict_batch(self.inner, [contexts[i] for i in failed.values()], [actions[i] for i in failed.values()])
            out.update(zip(failed, fresh))
        return [_copy(out[k]) for k in keys]

    def _predict(self, todo: dict[str, int], contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any],
                 out: dict[str, Prediction]) -> None:
        try:
            fresh = predict_batch(self.inner, [contexts[i] for i in todo.values()], [actions[i] for i in todo.values()])
            for k, pred in zip(todo, fresh, strict=True):
                if pred.failed is None:
                    rec = _dump(pred)
                    self.store.put(k, rec)
                    pred = _load(rec)
                out[k] = pred
        finally:
            for k in todo:
                self.store.release(k)


def _dump(pred: Prediction) -> dict[str, Any]:
    return {"score": float(pred.score), "feedback": pred.feedback, "cost_s": float(pred.cost_s),
            "checks": {name: {"p_pass": float(v.p_pass), "reason": str(v.reason), "parse_failed": bool(v.parse_failed)}
                       for name, v in pred.checks.items()}}


def _load(rec: dict[str, Any]) -> Prediction:
    return Prediction(rec["score"], {name: Verdict(**v) for name, v in rec["checks"].items()}, rec["feedback"],
                      rec["cost_s"])


def _copy(pred: Prediction) -> Prediction:
    return dataclasses.replace(pred, checks=dict(pred.checks))
