"""PredicateProgress against hand-computed values (no simulator needed)."""

from __future__ import annotations

import math

import pytest

from wmrl_envs.world_models.progress import PredicateProgress


def atom(holds, kind, distance, reach=0.0, obj="a"):
    return {"predicate": "in", "args": [obj, "b"], "holds": holds, "kind": kind, "distance": distance, "reach": reach}


def test_mean_of_held_and_decayed_atoms():
    ctx = {"atoms": [atom(True, "position", 0.0), atom(False, "position", 0.2, obj="c"), atom(False, "joint", 0.5, obj="d")]}
    pred = PredicateProgress(sigma_position=0.1, sigma_joint=0.25).predict(ctx, None)
    assert pred.score == pytest.approx((1.0 + math.exp(-2.0) + math.exp(-2.0)) / 3)
    assert pred.checks["in(a, b)"].p_pass == 1.0
    assert pred.checks["in(c, b)"].p_pass == pytest.approx(math.exp(-2.0))


def test_all_held_is_one_and_unheld_stays_below_one():
    model = PredicateProgress()
    assert model.predict({"atoms": [atom(True, "position", 0.0)] * 2}).score == 1.0
    assert model.predict({"atoms": [atom(False, "position", 0.0)]}).score < 1.0


def test_reach_term_credits_approaching_the_object():
    model = PredicateProgress(reach_weight=0.5, sigma_reach=0.1)
    far = model.predict({"atoms": [atom(False, "position", 0.3, reach=0.4)]}).score
    near = model.predict({"atoms": [atom(False, "position", 0.3, reach=0.0)]}).score
    assert near == pytest.approx(0.5 * math.exp(-3.0) + 0.5 * 1.0)
    assert far < near


def test_bad_arguments_and_context():
    with pytest.raises(ValueError, match="atoms"):
        PredicateProgress().predict({"instruction": "x"})
    with pytest.raises(ValueError, match="reach_weight"):
        PredicateProgress(reach_weight=1.0)
