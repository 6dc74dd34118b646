"""The progress model's training and probe episodes (``wmrl_agents.progress_fit``) on real simulator
steps at a tiny length: every visited state kept, atoms at the horizons, the noisy variant
perturbing what is executed, the stalled expert, and the rollouts file round trip."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.progress_fit import load_rollouts, policy_rollouts, save_rollouts, stalled_expert


class Still:
    """A policy that holds still: its mean action is the settle action; it samples around it."""

    def act(self, obs):
        return np.array([0, 0, 0, 0, 0, 0, -1], dtype=np.float32)

    def sample(self, obs, info, rng):
        return self.act(obs) + rng.normal(0, 0.1, 7).astype(np.float32), None


@pytest.mark.libero
def test_rollouts_keep_every_state_and_the_horizon_atoms(tmp_path):
    runs = policy_rollouts(Still(), [3], lambda task: [0], ["greedy", "noisy", "sampled"], max_steps=6,
                           horizons=(2, 50), say=None)
    assert [r["variant"] for r in runs] == ["greedy", "noisy", "sampled"]
    for r in runs:
        assert r["obs"].shape == (7, 151) and r["steps"] == 6 and not r["success"]
        assert set(r["atoms"]) == {"2", "50"}  # 50: read at the episode's end
        assert r["atoms"]["2"] and all({"predicate", "holds", "distance"} <= set(a) for a in r["atoms"]["2"])
    assert not np.allclose(runs[0]["obs"][-1], runs[1]["obs"][-1])  # the noise moved the arm
    path = save_rollouts(runs, tmp_path / "r.npz")
    back = load_rollouts(path)
    assert [b["variant"] for b in back] == ["greedy", "noisy", "sampled"]
    np.testing.assert_array_equal(back[1]["obs"], runs[1]["obs"])
    assert all(b["obs"].base is back[0]["obs"].base for b in back)  # views of one array read once, not a copy each


@pytest.mark.libero
def test_samples_make_a_group_whose_first_draw_is_the_single_samples():
    one = policy_rollouts(Still(), [3], lambda task: [0], ["greedy", "sampled"], max_steps=4, say=None)
    group = policy_rollouts(Still(), [3], lambda task: [0], ["greedy", "sampled"], max_steps=4, samples=3, say=None)
    assert [(r["variant"], r["draw"]) for r in group] == [("greedy", 0), ("sampled", 0), ("sampled", 1), ("sampled", 2)]
    assert {r["init"] for r in group} == {0}
    np.testing.assert_array_equal(group[1]["obs"], one[1]["obs"])  # committed rollouts keep their streams
    assert not np.allclose(group[2]["obs"][-1], group[3]["obs"][-1])  # the draws differ


@pytest.mark.libero
def test_the_stalled_expert_runs_to_the_envs_limit():
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3, max_steps=5)
    try:
        run = stalled_expert(env, init=0, stop=2, horizons=(3, 5))
    finally:
        env.close()
    assert run["steps"] == 5 and run["obs"].shape == (6, 151) and set(run["atoms"]) == {"3", "5"}
