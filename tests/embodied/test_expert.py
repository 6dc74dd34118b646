"""The scripted expert (geometry helpers; real LIBERO rollouts of a pick-and-place and of an
articulated atom) and the demonstrations recorder."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.demos import arm_noise, record_demos, rollout, split_init_states
from wmrl_agents.expert import ScriptedExpert, _rotation, _slots, object_box


def test_rotation_vector_to_matrix():
    np.testing.assert_allclose(_rotation(np.zeros(3)), np.eye(3))
    quarter = _rotation(np.array([0.0, 0.0, np.pi / 2]))
    np.testing.assert_allclose(quarter @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], atol=1e-12)
    tilt = _rotation(np.array([0.3, 0.0, 0.0]))  # about +x: the downward finger swings to +y
    assert (tilt @ [0.0, 0.0, -1.0])[1] > 0
    np.testing.assert_allclose(tilt @ tilt.T, np.eye(3), atol=1e-12)


def test_gripper_yaw_closes_across_a_bar():
    # yaw 0 closes the fingers along world y: right for a bar along x.
    assert ScriptedExpert._across(np.array([1.0, 0.0, 0.0])) == pytest.approx(0.0, abs=1e-12)
    assert abs(ScriptedExpert._across(np.array([0.0, 1.0, 0.0]))) == pytest.approx(np.pi / 2)
    assert ScriptedExpert._across(np.array([1.0, 1.0, 0.0])) == pytest.approx(np.pi / 4)
    for angle in np.linspace(-3, 3, 13):  # always the smaller turn, within +-pi/2
        assert abs(ScriptedExpert._across(np.array([np.cos(angle), np.sin(angle), 0.0]))) <= np.pi / 2 + 1e-9


def test_objects_sharing_a_region_get_slots():
    atoms = [["on", "moka_pot_1", "stove_region"], ["on", "moka_pot_2", "stove_region"],
             ["turnon", "flat_stove_1"], ["in", "mug", "basket_region"]]
    assert _slots(atoms) == {("moka_pot_1", "stove_region"): (0, 2), ("moka_pot_2", "stove_region"): (1, 2)}


class _CountingEnv:
    """A stand-in env: the observation is the step count; it records the executed actions."""

    def __init__(self, steps: int = 4) -> None:
        self.steps, self.executed = steps, []

    def reset(self, seed=None, options=None):
        self.t = 0
        return np.zeros(2, np.float32), {"task_id": 0}

    def step(self, action):
        self.executed.append(np.array(action))
        self.t += 1
        info = {"success": self.t == self.steps, "instruction": "x", "cost": {"sim_s": 0.01}}
        return np.full(2, self.t, np.float32), 0.0, self.t == self.steps, False, info


def test_dart_noise_is_executed_but_not_recorded():
    env = _CountingEnv()
    clean = np.array([0.5, -0.5, 0.0, 0.0, 0.0, 0.0, 1.0], np.float32)
    run = rollout(env, lambda obs, info: clean, init=0, perturb=arm_noise(0.2, np.random.default_rng(0)))
    assert run["success"] and run["steps"] == 4
    np.testing.assert_array_equal(run["actions"], np.tile(clean, (4, 1)))  # the expert's labels
    executed = np.stack(env.executed)
    assert np.all(executed[:, 6] == 1.0) and np.all(np.abs(executed) <= 1.0)  # gripper kept, clipped
    assert np.abs(executed[:, :6] - clean[:6]).mean() > 0.05  # the arm was perturbed
    np.testing.assert_array_equal(run["obs"][:, 0], [0, 1, 2, 3])


@pytest.mark.libero
def test_expert_turns_the_stove_on_and_puts_the_moka_pot_on_it():
    """Task 2: an articulated atom (grip the knob's bar and twist) then a placement on a region."""
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=2)
    train, _ = split_init_states(2)
    obs, _ = env.reset(seed=0, options={"init_state": train[0]})
    expert = ScriptedExpert(env)
    expert.reset()
    lower, upper = object_box(env.unwrapped.problem, "moka_pot_1")
    assert np.all(upper - lower > 0.03) and np.all(upper - lower < 0.2)
    stages = []
    for _ in range(400):
        obs, reward, terminated, truncated, info = env.step(expert.act(obs))
        stages.append(expert.stage)
        if terminated or truncated:
            break
    env.close()
    assert terminated and info["success"] and reward == 1.0
    assert all(a["holds"] for a in info["wm_context"]["atoms"])
    assert stages.index("knob-twist") < stages.index("carry")  # the stove first


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
