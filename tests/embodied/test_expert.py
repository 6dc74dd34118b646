"""The extended scripted expert on real LIBERO rollouts, and the demonstrations recorder."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.demos import record_demos, split_init_states
from wmrl_agents.expert import ScriptedExpert, object_box


@pytest.mark.libero
def test_expert_puts_mug_on_plate_and_pudding_beside_it():
    """Task 6 (two placements onto an object and a region): the placement aligns the held object,
    not the gripper, with the target, which the plate's 3 cm tolerance needs."""
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=6)
    obs, _ = env.reset(seed=0, options={"init_state": 0})
    expert = ScriptedExpert(env)
    expert.reset()
    lower, upper = object_box(env.unwrapped.problem, "porcelain_mug_1")
    assert np.all(upper - lower > 0.05) and np.all(upper - lower < 0.2)  # a mug, ~10 cm
    for _ in range(520):
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
        if terminated or truncated:
            break
    env.close()
    assert terminated and info["success"] and reward == 1.0
    assert all(a["holds"] for a in info["wm_context"]["atoms"])


@pytest.mark.libero
def test_record_demos_keeps_successes_from_train_states_only(tmp_path):
    demos, rows = record_demos([6], episodes_per_task=1)
    train, held = split_init_states(6)
    assert rows[0]["inits"] == train[:1] and rows[0]["success"] == 1.0
    assert demos.episodes == 1 and set(demos.episode_init.tolist()) <= set(train)
    assert not set(demos.episode_init.tolist()) & set(held)
    assert demos.obs.shape == (len(demos), 151) and demos.actions.shape == (len(demos), 7)
    assert np.all(demos.task == 6) and "plate" in demos.instructions[6]
    assert np.all(np.abs(demos.actions) <= 1.0)
    back = type(demos).load(demos.save(tmp_path / "d.npz"))
    np.testing.assert_array_equal(back.actions, demos.actions)
