"""The learned progress model: labels, a fit that separates successes from failures on synthetic
states, the checkpoint round trip, and the errors before any reward (bad checkpoint, wrong state
size, missing task)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs torch: bash scripts/setup.sh embodied")

from wmrl_envs.world_models.learned_progress import (  # noqa: E402
    LearnedProgress,
    fit_progress,
    progress_labels,
    rank_pairs,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from progress_fidelity import group_pairs, within_group  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _episodes(rng: np.random.Generator, n: int = 40, dim: int = 6) -> list[dict]:
    """Successes walk coordinate 0 from 0 to 1 (the 'object' reaching its goal); failures start the
    same way and wander near the start: only how far along coordinate 0 the state is tells them apart."""
    out = []
    for i in range(n):
        success = i % 2 == 0
        length = 30
        walk = np.linspace(0, 1, length) if success else np.minimum(np.linspace(0, 1, length), 0.3)
        obs = rng.normal(0, 0.05, size=(length, dim)).astype(np.float32)
        obs[:, 0] += walk
        out.append({"obs": obs, "task": i % 3, "success": success})
    return out


def test_labels_are_progress_for_successes_and_zero_for_failures():
    np.testing.assert_allclose(progress_labels(4, True), [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_array_equal(progress_labels(3, False), [0, 0, 0])
    with pytest.raises(ValueError, match="at least one step"):
        progress_labels(0, True)


def test_fit_ranks_states_by_how_far_a_success_gets_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    model = LearnedProgress(obs_dim=6, n_tasks=3, hidden=(32, 32))
    history = fit_progress(model, _episodes(rng), epochs=60, batch_size=64, lr=3e-3)
    assert history[-1] < history[0]
    states = np.zeros((3, 6), np.float32)
    states[:, 0] = [0.0, 0.3, 0.95]  # the start, where failures stall, near the goal
    p = model.progress(states, 0)
    assert p[2] > 0.6 and p[2] > p[1] + 0.3 and p[0] < 0.2
    folder = model.save(tmp_path / "ckpt")
    loaded = LearnedProgress(folder)
    np.testing.assert_allclose(loaded.progress(states, 0), p, rtol=1e-6)
    assert loaded.trained_on["episodes"] == 40 and loaded.trained_on["successes"] == 20
    pred = loaded.predict({"task_id": 0}, {"state": states[2]})  # a Dict observation's state entry
    assert pred.failed is None and abs(pred.score - p[2]) < 1e-6 and pred.cost_s >= 0


def test_bad_checkpoints_and_inputs_are_errors_not_rewards(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        LearnedProgress(tmp_path / "nowhere")
    model = LearnedProgress(obs_dim=6, n_tasks=3, hidden=(8,))
    with pytest.raises(ValueError, match="6-D states, the env gives 151"):
        model.predict({"task_id": 0}, np.zeros(151, np.float32))
    with pytest.raises(ValueError, match="task_id"):
        model.predict({}, np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="task index out of range"):
        model.predict({"task_id": 7}, np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="successful and failed"):
        fit_progress(model, [e for e in _episodes(np.random.default_rng(1)) if e["success"]])
    with torch.no_grad():  # a broken checkpoint: NaN weights
        model.net[-1].bias.fill_(float("nan"))
    with pytest.raises(ValueError, match="predicted nan"):
        model.predict({"task_id": 0}, np.zeros(6, np.float32))


def test_rank_pairs_match_steps_of_one_start_and_clip_to_the_last_state():
    z = np.zeros((1, 2), np.float32)
    eps = [{"obs": np.repeat(z, 5, 0), "task": 0, "init": 3, "success": True},     # rows 0-4
           {"obs": np.repeat(z, 8, 0), "task": 0, "init": 3, "success": False},    # rows 5-12
           {"obs": np.repeat(z, 8, 0), "task": 0, "init": 4, "success": False},    # another start: no pair
           {"obs": np.repeat(z, 6, 0), "task": 0, "success": True},                # a demonstration: no pair
           {"obs": np.repeat(z, 8, 0), "task": 1, "init": 3, "success": False}]    # another task: no pair
    pairs = rank_pairs(eps, rank_from=2, rank_stride=2)
    # steps 2, 4, 6 (the success ended at step 4: its last state stands in for step 6)
    np.testing.assert_array_equal(pairs, [[2, 7], [4, 9], [4, 11]])
    assert rank_pairs(eps[2:], 0, 1).shape == (0, 2)
    with pytest.raises(ValueError, match="rank_stride"):
        rank_pairs(eps, 0, 0)


def _groups(rng: np.random.Generator, starts: int = 12, size: int = 8, dim: int = 6) -> list[dict]:
    """GRPO-like groups: a start's difficulty (coordinate 1) sets how many of its episodes succeed,
    and within a start only a small late lead on coordinate 0 tells a success from a failure."""
    out = []
    for init in range(starts):
        easy = init / (starts - 1)
        for k in range(size):
            success = k < max(1, min(size - 1, round(easy * size)))
            obs = rng.normal(0, 0.05, size=(40, dim)).astype(np.float32)
            obs[:, 1] += easy
            obs[20:, 0] += 0.15 if success else 0.0
            out.append({"obs": obs, "task": 0, "init": init, "success": success})
    return out


def _within_auc(model: LearnedProgress, episodes: list[dict], step: int) -> float:
    scores = model.progress(np.stack([e["obs"][step] for e in episodes]), 0)
    success = np.array([e["success"] for e in episodes], dtype=float)
    return within_group(group_pairs(scores, success, [e["init"] for e in episodes]))["auc_within"]


def test_the_ranking_term_orders_a_groups_episodes():
    rng = np.random.default_rng(0)
    train, held = _groups(rng), _groups(np.random.default_rng(1))
    model = LearnedProgress(obs_dim=6, n_tasks=1, hidden=(32, 32))
    fit_progress(model, train, epochs=40, batch_size=64, lr=3e-3, rank_weight=1.0, rank_from=20, rank_stride=5)
    assert model.trained_on["rank_weight"] == 1.0 and model.trained_on["rank_pairs"] > 0
    assert _within_auc(model, held, step=30) > 0.9
    with pytest.raises(ValueError, match="ended differently"):
        fit_progress(LearnedProgress(obs_dim=6, n_tasks=1, hidden=(8,)),
                     [e for e in train if (e["init"], e["success"]) in ((0, True), (1, False))], rank_weight=1.0)
