"""PredicateProgress against hand-computed values (no simulator needed)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from wmrl_envs.world_models.progress import PredicateProgress, RobometerProgress


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


class TinyRewardNet:
    """A tiny random net with Robometer's interface: frames + instruction -> per-frame logits."""

    def __init__(self, bins=10, seed=0):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(size=(3, bins))
        self.v = rng.normal(size=3)
        self.calls = []

    def __call__(self, frames, instruction):
        self.calls.append((frames.shape, instruction))
        colour = frames.reshape(len(frames), -1, 3).mean(1) / 255.0
        return colour @ self.w + len(instruction) % 3, colour @ self.v


def test_robometer_adapter_buffers_frames_and_reads_the_heads():
    net = TinyRewardNet()
    model = RobometerProgress(model=net, num_frames=3, image_size=16)
    rng = np.random.default_rng(1)
    frames = [rng.integers(0, 256, (32, 40, 3), dtype=np.uint8) for _ in range(5)]
    for t, f in enumerate(frames, start=1):
        pred = model.predict({"instruction": "put the bowl", "step": t}, {"agentview": f})
    assert net.calls[-1] == ((3, 16, 16, 3), "put the bowl") and [c[0][0] for c in net.calls] == [1, 2, 3, 3, 3]
    # The score is the softmax mean of the last frame's bins on [0, 1]; success is the sigmoid.
    last = np.asarray(Image.fromarray(frames[-1]).resize((16, 16), Image.BILINEAR)).reshape(-1, 3).mean(0) / 255.0
    logits = last @ net.w + len("put the bowl") % 3
    p = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert pred.score == pytest.approx(float(p @ np.linspace(0, 1, 10)))
    assert pred.checks["success"].p_pass == pytest.approx(1 / (1 + np.exp(-(last @ net.v))))
    # A new episode (the step count restarts) starts a new buffer.
    model.predict({"instruction": "x", "step": 1}, {"agentview": frames[0]})
    assert net.calls[-1][0][0] == 1


def test_robometer_adapter_errors():
    with pytest.raises(ValueError, match="local path"):
        RobometerProgress("/nonexistent/robometer")
    with pytest.raises(ValueError, match="obs_mode"):
        RobometerProgress(model=TinyRewardNet()).predict({"step": 1}, np.zeros(151))
