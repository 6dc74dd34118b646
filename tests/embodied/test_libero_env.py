"""WMRL/LIBERO-Long-v0 on the real simulator: API, determinism, bad input, success detection."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.expert import ScriptedExpert
from wmrl_envs.embodied import suite
from wmrl_envs.world_models.progress import PredicateProgress

pytestmark = pytest.mark.libero
COST_KEYS = {"exec_s", "exec_cpu_s", "wm_s", "sim_steps", "sim_s"}


def test_check_env_passes(kitchen_env):
    from gymnasium.utils.env_checker import check_env

    check_env(kitchen_env.unwrapped, skip_render_check=True)


def test_reset_and_step_info(kitchen_env):
    kitchen_env.reset(seed=0)
    kitchen_env.step(np.zeros(7))  # bills the resets that earlier tests left without a step
    obs, info = kitchen_env.reset(seed=3, options={"group": "g1"})
    assert obs.shape == (151,) and obs.dtype == np.float32
    assert info["task_id"] == 3 and info["group"] == "g1" and 0 <= info["init_state"] < 50
    assert info["instruction"] == "put the black bowl in the bottom drawer of the cabinet and close it"
    assert info["cost"]["sim_steps"] == 0 and info["cost"]["sim_s"] == 0  # charged to the first step
    obs, reward, terminated, truncated, info = kitchen_env.step(np.zeros(7))
    assert (reward, terminated, truncated, info["success"], info["score"]) == (0.0, False, False, False, 0.0)
    assert info["reward_source"] == "real" and set(info["cost"]) == COST_KEYS
    assert info["cost"]["sim_steps"] == 1 + 10 and info["cost"]["sim_s"] > 0  # the step + 10 settle steps
    assert kitchen_env.step(np.zeros(7))[4]["cost"]["sim_steps"] == 1
    ctx = json.loads(json.dumps(info["wm_context"]))  # JSON-serializable
    assert [a["predicate"] for a in ctx["atoms"]] == ["close", "in"] and ctx["step"] == 1
    assert not any(a["holds"] for a in ctx["atoms"]) and all(a["distance"] > 0 for a in ctx["atoms"])
    # A default group is fresh per episode.
    assert kitchen_env.reset(seed=3)[1]["group"] != kitchen_env.reset(seed=3)[1]["group"]
    assert kitchen_env.step(np.zeros(7))[4]["cost"]["sim_steps"] == 1 + 2 * 10  # both resets' settle steps


def test_seed_fixes_init_state_and_trajectory(kitchen_env):
    actions = np.random.default_rng(0).uniform(-1, 1, (15, 7))

    def rollout(seed):
        obs, info = kitchen_env.reset(seed=seed)
        return info["init_state"], np.stack([obs] + [kitchen_env.step(a)[0] for a in actions])

    (i1, t1), (i2, t2) = rollout(7), rollout(7)
    assert i1 == i2 and np.array_equal(t1, t2)
    inits = {kitchen_env.reset(seed=s)[1]["init_state"] for s in range(8)}
    assert len(inits) > 1


def test_bad_actions_raise_and_leave_the_simulator_intact(kitchen_env):
    a = np.full(7, 0.4)
    kitchen_env.reset(seed=1)
    expected = kitchen_env.step(a)[0]
    kitchen_env.reset(seed=1)
    for bad in (np.zeros(6), np.zeros((7, 1)), np.array([np.nan] + [0.0] * 6), np.full(7, np.inf)):
        with pytest.raises(ValueError, match="action"):
            kitchen_env.step(bad)
    assert np.array_equal(kitchen_env.step(a)[0], expected)
    # Out of range is clipped to [-1, 1], as documented.
    kitchen_env.reset(seed=1)
    big = kitchen_env.step(np.full(7, 5.0))[0]
    kitchen_env.reset(seed=1)
    assert np.array_equal(big, kitchen_env.step(np.ones(7))[0])


def test_task_selection_and_errors(kitchen_env):
    name = suite.task_names()[3]
    assert kitchen_env.reset(seed=0, options={"task_id": name})[1]["task_id"] == 3
    assert kitchen_env.reset(seed=0, options={"task_id": "3", "init_state": 49})[1]["init_state"] == 49
    with pytest.raises(ValueError, match="unknown libero_10 task"):
        kitchen_env.reset(options={"task_id": 10})
    with pytest.raises(ValueError, match="init_state"):
        kitchen_env.reset(options={"init_state": 50})
    with pytest.raises(ValueError, match="obs_mode"):
        gym.make("WMRL/LIBERO-Long-v0", obs_mode="depth")


def test_truncation_is_ours_at_max_steps():
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3, max_steps=4, settle_steps=0)
    env.reset(seed=0)
    ends = [env.step(np.zeros(7))[2:4] for _ in range(4)]
    assert ends == [(False, False)] * 3 + [(False, True)]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(7))
    env.close()


def test_missing_assets_say_how_to_install(tmp_path):
    with pytest.raises(suite.LiberoNotInstalled, match="setup.sh embodied"):
        gym.make("WMRL/LIBERO-Long-v0", assets_dir=tmp_path)


def test_expert_succeeds_and_progress_reaches_one():
    """Task 7 (soup + cream cheese into the basket): success detection end to end."""
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=7)
    expert, progress = ScriptedExpert(env), PredicateProgress()
    obs, info = env.reset(seed=0)
    expert.reset()
    start = progress.predict(info["wm_context"], obs).score
    seen = [start]
    for _ in range(520):
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
        seen.append(progress.predict(info["wm_context"], obs).score)
        if terminated or truncated:
            break
    env.close()
    assert terminated and not truncated and reward == 1.0 and info["success"] and info["score"] == 1.0
    assert all(a["holds"] for a in info["wm_context"]["atoms"])
    assert seen[-1] == 1.0 and start < 0.2
    assert max(seen[:-1]) < 1.0  # progress is complete only when the task is


def test_pixels_small_cameras_upright():
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3, obs_mode="pixels_state", image_size=(32, 48))
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(np.zeros(7))
    env.close()
    assert set(obs) == {"agentview", "wrist", "state"}
    assert obs["agentview"].shape == obs["wrist"].shape == (32, 48, 3) and obs["agentview"].dtype == np.uint8
    assert env.observation_space.contains(obs)
    # Upright: in the kitchen's agentview the dark back wall is above the light wooden table.
    view = obs["agentview"].astype(float)
    assert view[:10].mean() + 40 < view[-10:].mean()


def test_async_vector_env_builds_simulators_in_workers():
    envs = gym.make_vec("WMRL/LIBERO-Long-v0", num_envs=2, vectorization_mode="async", task_id=3)
    obs, info = envs.reset(seed=[0, 1])
    assert obs.shape == (2, 151)
    obs, reward, terminated, truncated, info = envs.step(np.zeros((2, 7), dtype=np.float32))
    envs.close()
    assert obs.shape == (2, 151) and list(info["cost"]["sim_steps"]) == [11, 11]  # 1 + 10 settle steps
