"""MemoWorldModel: each distinct (task context, program) is predicted once; repeats cost the lookup."""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from wmrl_envs.world_models.base import Prediction
from wmrl_envs.world_models.memo import MemoWorldModel


class Counting:
    """Scores a program by its length; every prediction costs 1 s; ``fail`` programs fail."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        self.seen += list(actions)
        return [Prediction.failure("server down", 1.0) if "fail" in a else Prediction(min(1.0, len(a) / 100), cost_s=1.0)
                for a in actions]

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]


CTX = {"task_id": "t", "limits": {"cpu_s": 20.0}}


def test_copies_within_a_batch_and_across_batches_are_predicted_once():
    inner = Counting()
    wm = MemoWorldModel(inner)
    first = wm.predict_batch([CTX] * 4, ["a = 1", "b = 22", "a = 1", "a = 1"])
    again = wm.predict(CTX, "b = 22")
    assert inner.seen == ["a = 1", "b = 22"]
    assert [p.score for p in first] == [0.05, 0.06, 0.05, 0.05] and again.score == 0.06
    assert [p.cost_s for p in first[:2]] == [1.0, 1.0]
    assert all(p.cost_s < 0.01 for p in (first[2], first[3], again)) and "not run again" in again.feedback
    assert (wm.hits, wm.misses) == (3, 2)


def test_the_task_context_is_part_of_the_key():
    inner = Counting()
    wm = MemoWorldModel(inner)
    wm.predict(CTX, "a = 1")
    wm.predict({**CTX, "limits": {"cpu_s": 60.0}}, "a = 1")  # other limits: another outcome
    wm.predict({**CTX, "task_id": "u"}, "a = 1")
    assert len(inner.seen) == 3


def test_a_failed_prediction_is_not_kept():
    inner = Counting()
    wm = MemoWorldModel(inner)
    batch = wm.predict_batch([CTX] * 2, ["fail = 1", "fail = 1"])
    assert all(p.failed for p in batch)
    assert wm.predict(CTX, "fail = 1").failed and inner.seen == ["fail = 1", "fail = 1"]


def test_capacity_drops_the_least_recently_used_and_copies_are_independent():
    inner = Counting()
    wm = MemoWorldModel(inner, capacity=2)
    for a in ("a", "b", "a", "c", "a"):  # "b" is the least recently used when "c" comes
        wm.predict(CTX, a)
    wm.predict(CTX, "b")
    assert inner.seen == ["a", "b", "c", "b"]
    copy = pickle.loads(pickle.dumps(wm))
    copy.predict(CTX, "zz")
    assert "zz" not in inner.seen and copy.inner.seen[-1] == "zz"
    with pytest.raises(ValueError, match="capacity"):
        MemoWorldModel(inner, capacity=0)
