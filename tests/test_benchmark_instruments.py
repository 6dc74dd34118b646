"""The controlled-fidelity instrument: known distortion, fixed per-program noise, a blind spot."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _instruments import TableWorldModel, program_hash  # noqa: E402

REAL = {("t", f"p{i}"): i / 20 for i in range(21)}


def lookup(task, program):
    return REAL.get((task, program))


def _score(wm, i, task="t"):
    return wm.predict({"task_id": task}, f"p{i}").score


def test_distortion_alone_is_the_exact_power():
    wm = TableWorldModel(lookup, gamma=3.0)
    assert [_score(wm, i) for i in range(21)] == pytest.approx([(i / 20) ** 3 for i in range(21)])


def test_a_task_distortion_takes_the_tasks_own_power():
    both = {**REAL, **{("u", p): r for (_, p), r in REAL.items()}}
    wm = TableWorldModel(lambda t, p: both.get((t, p)), gamma=3.0, task_gamma={"u": 0.25})
    assert [_score(wm, i, "u") for i in range(21)] == pytest.approx([(i / 20) ** 0.25 for i in range(21)])
    assert [_score(wm, i, "t") for i in range(21)] == pytest.approx([(i / 20) ** 3 for i in range(21)])
    with pytest.raises(ValueError, match="task_gamma"):
        TableWorldModel(lookup, task_gamma={"u": 0.0})


def test_noise_is_fixed_per_program_and_has_the_asked_size():
    wm = TableWorldModel(lookup, sigma=0.1, seed=7)
    first = [_score(wm, i) for i in range(21)]
    assert first == [_score(wm, i) for i in range(21)]  # the same program, the same score
    big = {("t", f"q{i}"): 0.5 for i in range(2000)}
    noisy = TableWorldModel(lambda t, p: big.get((t, p)), sigma=0.1, seed=7)
    errs = np.array([noisy.predict({"task_id": "t"}, f"q{i}").score - 0.5 for i in range(2000)])
    assert abs(errs.std() - 0.1) < 0.01 and abs(errs.mean()) < 0.01


def test_blind_spot_programs_score_high_whatever_their_reward():
    blind = {program_hash("t", f"p{i}") for i in range(5)}
    wm = TableWorldModel(lookup, blind=blind, blind_low=0.6)
    assert all(0.6 <= _score(wm, i) <= 1.0 for i in range(5))
    assert len({round(_score(wm, i), 6) for i in range(5)}) == 5  # spread, not one giveaway level
    assert _score(wm, 10) == pytest.approx(0.5)


def test_unknown_programs_fail_loudly_and_bad_settings_are_refused():
    pred = TableWorldModel(lookup).predict({"task_id": "t"}, "never-run")
    assert pred.failed and "no recorded outcome" in pred.failed
    with pytest.raises(ValueError):
        TableWorldModel(lookup, gamma=0)
