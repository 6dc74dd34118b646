"""RecordedWorldModel: a prediction is measured once and served again, anywhere, at its recorded cost."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from wmrl_envs.replay import OutcomeStore
from wmrl_envs.world_models.base import Prediction, Verdict
from wmrl_envs.world_models.factory import make_world_model
from wmrl_envs.world_models.recorded import RecordedWorldModel
from wmrl_envs.world_models.static import CodeCheckWorldModel


class Loaded:
    """Scores a program by its length; each prediction's cost is what the machine's load made it
    (a new number every call); ``fail`` programs fail; ``slow`` ones take 0.2 s of wall time."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.calls = 0
        self._lock = threading.Lock()

    def predict_batch(self, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]) -> list[Prediction]:
        with self._lock:
            self.seen += list(actions)
            self.calls += 1
            load = self.calls
        if any("slow" in a for a in actions):
            time.sleep(0.2)
        return [Prediction.failure("server down", 0.5) if "fail" in a else
                Prediction(min(1.0, len(a) / 100), {"runs": Verdict(0.9, "ok")}, "fine", cost_s=0.1 * load)
                for a in actions]

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        return self.predict_batch([context], [action])[0]


CTX = {"task_id": "t", "limits": {"cpu_s": 20.0}}


def test_a_replay_serves_the_recorded_prediction_and_cost(tmp_path):
    inner = Loaded()
    live = RecordedWorldModel(inner, OutcomeStore(tmp_path / "p.jsonl"), "m@1")
    first = live.predict_batch([CTX] * 3, ["a = 1", "bb = 2", "a = 1"])
    assert inner.seen == ["a = 1", "bb = 2"] and [p.cost_s for p in first] == [0.1, 0.1, 0.1]
    again = live.predict(CTX, "bb = 2")  # a repeat in the same run: the recorded cost, not this call's
    assert again == first[1] and inner.calls == 1
    fresh = Loaded()
    fresh.calls = 40  # another load: a live ask would cost 4.1
    replay = RecordedWorldModel(fresh, OutcomeStore(tmp_path / "p.jsonl"), "m@1")
    assert replay.predict_batch([CTX] * 3, ["a = 1", "bb = 2", "a = 1"]) == first and fresh.seen == []
    assert first[0].checks == {"runs": Verdict(0.9, "ok")} and first[0].feedback == "fine"


def test_another_model_or_code_version_or_task_is_never_served_a_stale_prediction(tmp_path):
    inner = Loaded()
    store = OutcomeStore(tmp_path / "p.jsonl")
    RecordedWorldModel(inner, store, "m@1").predict(CTX, "a = 1")
    RecordedWorldModel(inner, store, "m@2").predict(CTX, "a = 1")
    RecordedWorldModel(inner, store, "m@1").predict({**CTX, "limits": {"cpu_s": 60.0}}, "a = 1")
    assert inner.seen == ["a = 1"] * 3


def test_a_failed_prediction_is_not_recorded(tmp_path):
    inner = Loaded()
    wm = RecordedWorldModel(inner, OutcomeStore(tmp_path / "p.jsonl"), "m@1")
    assert wm.predict(CTX, "fail").failed == "server down"
    assert wm.predict(CTX, "fail").failed == "server down" and inner.seen == ["fail", "fail"]
    assert not (tmp_path / "p.jsonl").exists()


def test_threads_asking_one_program_at_once_predict_it_once_and_charge_alike(tmp_path):
    inner = Loaded()
    wm = RecordedWorldModel(inner, OutcomeStore(tmp_path / "p.jsonl"), "m@1")
    got: list[Prediction] = []
    threads = [threading.Thread(target=lambda: got.append(wm.predict(CTX, "slow = 1"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inner.seen == ["slow = 1"] and len({p.cost_s for p in got}) == 1


def test_the_static_model_from_the_factory_is_recorded_only_when_asked(tmp_path):
    assert isinstance(make_world_model("static"), CodeCheckWorldModel)
    wm = make_world_model("static", record=OutcomeStore(tmp_path / "p.jsonl"))
    program = "import pandas as pd\nprint(pd.read_csv('data/train.csv').shape)"
    ctx = {"task_id": "t", "files": {}}
    first = wm.predict(ctx, program)
    again = make_world_model("static", record=OutcomeStore(tmp_path / "p.jsonl")).predict(ctx, program)
    assert again == first and isinstance(wm, RecordedWorldModel) and wm.tag.startswith("static@")
