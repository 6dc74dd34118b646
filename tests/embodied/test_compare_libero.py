"""`wmrl compare --env WMRL/LIBERO-Long-v0`: the same comparison as the text envs (one module, an
adapter per env family), on real simulator steps at a smoke budget; bad input refused before any
simulation; training never starts from a held-out init state."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.compare import Budget, compare
from wmrl_agents.compare_libero import LiberoWorld, TrainInitStates
from wmrl_agents.demos import split_init_states
from wmrl_envs.cli import main

SMOKE = ["--budget", "0.05", "--max-steps", "30", "--wm-horizon", "8", "--eval-inits", "1", "--quiet"]


@pytest.mark.libero
def test_cli_runs_the_embodied_compare_and_writes_the_same_results(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--agent", "gaussian", "--arms", "real,wmrl", "--tasks", "0",
                 "--anchor-rate", "0.5", "--out", str(out), *SMOKE])
    printed = capsys.readouterr().out
    assert code == 0
    assert "success from held-out init states" in printed and "task" in printed
    results = json.loads((out / "results.json").read_text())
    assert (out / "compare.png").stat().st_size > 0
    assert results["config"]["env_id"] == "WMRL/LIBERO-Long-v0" and results["config"]["tasks"] == [0]
    for arm in ("real", "wmrl"):
        run = results["runs"]["0"][arm]
        assert list(run["heldout_per_task"]) == ["0"] and 0.0 <= run["heldout"] <= 1.0
        assert run["sim_s"] > 0 and run["compute_s"] >= run["sim_s"]  # simulator seconds are compute
        assert [p["update"] for p in run["curve"]] == [0, 1]
    assert results["runs"]["0"]["real"]["real_executions"] == 16  # 2 groups x 8 episodes, all simulated to the end
    assert results["runs"]["0"]["wmrl"]["real_executions"] < 16  # world-model episodes stop at the horizon


@pytest.mark.libero
def test_bc_agent_starts_every_arm_from_the_same_sft_policy(tmp_path):
    world = LiberoWorld(tasks=[0], agent="bc", max_steps=30, wm_horizon=8, eval_inits=1, bc_epochs=3,
                        demo_episodes=1, cache=tmp_path, progress=False)
    world.check()
    a, b = world.policy(0), world.policy(0)
    x = np.zeros(151, dtype=np.float32)
    assert np.allclose(a.act(x, 0), b.act(x, 0)) and list(tmp_path.glob("demos-t0-n1.npz"))
    results = compare(budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1, eval_samples=0),
                      arms=("real", "wmrl-no-debias"), family=world, progress=False)
    assert set(results["summary"]) == {"real", "wmrl-no-debias"}
    start = [results["runs"]["0"][arm]["curve"][0]["heldout"] for arm in ("real", "wmrl-no-debias")]
    assert start[0] == start[1]  # the same SFT policy, scored on the same held-out init states


@pytest.mark.parametrize("argv, message", [
    (["--tasks", "12"], "unknown libero_10 task"),
    (["--agent", "composer"], "unknown agent 'composer' for WMRL/LIBERO-Long-v0"),
    (["--world-model", "static"], "unknown progress world model 'static'"),
    (["--demos", "/nonexistent.npz"], "demonstrations file '/nonexistent.npz' does not exist"),
])
def test_bad_input_is_one_line_before_any_simulation(argv, message, capsys):
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", *argv, *SMOKE]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.libero
def test_a_policy_whose_action_shape_does_not_fit_is_refused_before_simulating():
    from wmrl_agents.gaussian import GaussianPolicy

    world = LiberoWorld(tasks=[0], agent=lambda seed: GaussianPolicy(151, act_dim=6, seed=seed), progress=False)
    with pytest.raises(ValueError, match="outputs 6-D actions"):
        world.check()


@pytest.mark.libero
def test_training_resets_only_from_train_init_states():
    env = TrainInitStates(gym.make("WMRL/LIBERO-Long-v0", max_steps=5))
    try:
        train, held_out = split_init_states(0)
        seen = {env.reset(seed=s, options={"task_id": 0})[1]["init_state"] for s in range(12)}
    finally:
        env.close()
    assert seen <= set(train) and not seen & set(held_out) and len(seen) > 1


@pytest.mark.libero
def test_every_episode_of_a_group_starts_from_the_groups_train_init_state():
    env = TrainInitStates(gym.make("WMRL/LIBERO-Long-v0", max_steps=5))
    try:
        train, _ = split_init_states(0)
        starts = {g: {env.reset(seed=s, options={"task_id": 0, "group": g})[1]["init_state"] for s in range(3)}
                  for g in ("s0-u0-g0", "s0-u0-g1", "s0-u1-g0", "s1-u0-g0")}
    finally:
        env.close()
    assert all(len(seen) == 1 and seen <= set(train) for seen in starts.values())  # one state per group
    assert len(set.union(*starts.values())) > 1  # groups differ


def _tiny_progress_checkpoint(folder, obs_dim=151):
    from wmrl_envs.world_models.learned_progress import LearnedProgress, fit_progress

    rng = np.random.default_rng(0)
    episodes = [{"obs": rng.normal(size=(6, obs_dim)).astype(np.float32), "task": 0, "success": i % 2 == 0}
                for i in range(4)]
    model = LearnedProgress(obs_dim=obs_dim, hidden=(8,))
    fit_progress(model, episodes, epochs=1)
    return model.save(folder)


@pytest.mark.libero
def test_a_learned_progress_checkpoint_is_the_wmrl_arms_world_model(tmp_path, capsys):
    pytest.importorskip("torch")
    ckpt = _tiny_progress_checkpoint(tmp_path / "progress")
    out = tmp_path / "out"
    code = main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--agent", "gaussian", "--arms", "real,wmrl", "--tasks", "0",
                 "--world-model", f"learned-progress:{ckpt}", "--anchor-rate", "0.5", "--out", str(out), *SMOKE])
    assert code == 0, capsys.readouterr().err
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["world_model"] == f"learned-progress:{ckpt}"
    train = [json.loads(line) for line in (out / "seed0" / "wmrl" / "metrics.jsonl").read_text().splitlines()]
    assert train[0]["wm/raw_mean"] is not None  # the learned model scored world-model episodes


def test_a_learned_progress_checkpoint_that_does_not_fit_is_refused_before_simulating(tmp_path, capsys):
    pytest.importorskip("torch")
    ckpt = _tiny_progress_checkpoint(tmp_path / "small", obs_dim=9)
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--world-model", f"learned-progress:{ckpt}", *SMOKE]) == 2
    assert "takes 9-D states, WMRL/LIBERO-Long-v0 gives 151" in capsys.readouterr().err
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--world-model", f"learned-progress:{tmp_path}/none",
                 *SMOKE]) == 2
    err = capsys.readouterr().err
    assert "progress model checkpoint" in err and "does not exist" in err and len(err.strip().splitlines()) == 1


@pytest.mark.libero
def test_a_robometer_style_progress_model_plugs_in_and_the_env_renders_its_frames():
    """The Robometer path with the tests' tiny random reward net: frames are rendered for it,
    the policy acts on the state entry, and the net scores world-model episodes at the horizon."""
    from embodied.test_progress import TinyRewardNet
    from wmrl_envs.world_models.progress import RobometerProgress

    net = TinyRewardNet()
    world = LiberoWorld(tasks=[0], agent="gaussian", world_model=RobometerProgress(model=net, num_frames=2, image_size=16),
                        max_steps=12, wm_horizon=4, eval_inits=1, progress=False)
    results = compare(budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1, eval_samples=0),
                      arms=("real", "wmrl"), family=world, progress=False)
    assert results["config"]["world_model"] == "RobometerProgress"
    assert net.calls and all(shape[1:] == (16, 16, 3) for shape, _ in net.calls)
    assert results["runs"]["0"]["wmrl"]["sim_s"] > 0


def test_a_missing_robometer_folder_is_refused_before_loading(capsys):
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--world-model", "robometer:/nonexistent", *SMOKE]) == 2
    assert "Robometer checkpoint folder '/nonexistent' does not exist" in capsys.readouterr().err


class TinyVLA:
    """A tiny random net with the VLAPolicy interface: the agentview frame's mean colour -> 7-D."""

    def __init__(self, seed=0):
        self.w = np.random.default_rng(seed).normal(size=(3, 7))
        self.calls = 0

    def act(self, obs, instruction):
        self.calls += 1
        assert isinstance(instruction, str) and instruction
        colour = np.asarray(obs["agentview"], dtype=np.float64).reshape(-1, 3).mean(0) / 255.0
        return np.tanh(colour @ self.w).astype(np.float32)


@pytest.mark.libero
def test_a_vla_with_a_residual_head_trains_in_the_same_compare():
    from wmrl_agents.residual import ResidualVLAPolicy

    vla = TinyVLA()
    world = LiberoWorld(tasks=[0], agent=lambda seed: ResidualVLAPolicy(vla, seed=seed), max_steps=10, wm_horizon=4,
                        eval_inits=1, progress=False)
    results = compare(budget=Budget(updates=1, group_size=2, groups_per_update=1, eval_every=1, eval_samples=0),
                      arms=("real", "wmrl"), family=world, progress=False)
    assert vla.calls > 0 and set(results["summary"]) == {"real", "wmrl"}
    policy = ResidualVLAPolicy(vla, seed=0)
    obs = {"agentview": np.full((8, 8, 3), 128, np.uint8), "state": np.zeros(151, np.float32)}
    base = vla.act(obs, "x")
    assert np.allclose(policy.act_greedy(obs, {"instruction": "x"}), base)  # starts as the VLA itself


def test_a_vla_checkpoint_that_is_not_there_is_refused(capsys):
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", "--agent", "vla:/nonexistent", *SMOKE]) == 2
    assert "VLA checkpoint folder '/nonexistent' does not exist" in capsys.readouterr().err


def test_no_libero_stack_is_one_line_naming_the_install(monkeypatch, capsys):
    from wmrl_envs.embodied import suite

    def missing():
        raise suite.LiberoNotInstalled(f"the 'libero' package is not installed: {suite.INSTALL_HINT}")

    monkeypatch.setattr(suite, "task_names", missing)
    assert main(["compare", "--env", "WMRL/LIBERO-Long-v0", *SMOKE]) == 2
    err = capsys.readouterr().err
    assert "bash scripts/setup.sh embodied" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
