"""Agents on embodied envs: GRPO with the Gaussian policy on LIBERO under world-model rewards,
SB3 PPO on LIBERO unmodified, and PPO on a stock Gymnasium env with a user's progress function."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs torch: bash scripts/setup.sh sb3")
pytest.importorskip("stable_baselines3", reason="needs stable-baselines3: bash scripts/setup.sh sb3")

import gymnasium as gym  # noqa: E402

import wmrl_envs  # noqa: E402, F401
from wmrl_agents.gaussian import GaussianPolicy  # noqa: E402
from wmrl_agents.grpo import GRPOTrainer  # noqa: E402
from wmrl_agents.sb3 import train_ppo  # noqa: E402
from wmrl_envs.mixing import MixingConfig  # noqa: E402
from wmrl_envs.world_models.progress import PredicateProgress  # noqa: E402
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper  # noqa: E402


def _weights(policy: GaussianPolicy) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in policy.params])


@pytest.mark.libero
def test_grpo_trains_gaussian_policy_on_world_model_rewards(tmp_path):
    base = gym.make("WMRL/LIBERO-Long-v0", task_id=3, max_steps=40)
    env = WorldModelWrapper(base, PredicateProgress(reach_weight=0.5), wm_horizon=12)
    policy = GaussianPolicy(obs_dim=151, seed=0)
    before = _weights(policy)
    trainer = GRPOTrainer(env, policy, tasks=["3"], group_size=3, groups_per_update=1, seed=0,
                          log_dir=tmp_path, progress=False)
    history = trainer.train(updates=2)
    assert len(history) == 2 and all(np.isfinite(h["policy/loss"]) for h in history)
    assert not np.allclose(before, _weights(policy))
    # Every episode was cut at wm_horizon: 2 updates x 3 episodes x (10 settle + 12) simulated steps.
    assert trainer.totals["sim_steps"] == 2 * 3 * (10 + 12) and trainer.totals["real_episodes"] == 0
    # The checkpoint restores the policy exactly.
    restored = GaussianPolicy(obs_dim=151, seed=1)
    fresh = GRPOTrainer(env, restored, tasks=["3"], group_size=3, log_dir=tmp_path, progress=False)
    assert fresh.maybe_resume() and fresh.update_idx == 2
    assert np.array_equal(_weights(restored), _weights(policy))
    env.close()


@pytest.mark.libero
def test_mixed_rewards_run_anchors_to_the_end_and_cut_the_rest():
    base = gym.make("WMRL/LIBERO-Long-v0", task_id=3, max_steps=15)
    env = MixedRewardWrapper(base, PredicateProgress(), MixingConfig(anchor_rate=0.5, seed=0), wm_horizon=5)
    lengths = {}
    for g in range(6):
        env.reset(seed=g, options={"group": f"g{g}"})
        steps, done = 0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(np.zeros(7))
            steps, done = steps + 1, terminated or truncated
        lengths[info["mixing"]["anchor"]] = steps
        assert 0.0 <= info["mixing"]["wm_raw"] <= 1.0
    env.close()
    assert lengths == {True: 15, False: 5}


@pytest.mark.libero
def test_sb3_ppo_trains_on_libero_unmodified(tmp_path):
    model = train_ppo("WMRL/LIBERO-Long-v0", total_timesteps=64, n_envs=1, seed=0,
                      env_kwargs={"task_id": 3, "max_steps": 32}, n_steps=32, batch_size=32, n_epochs=1,
                      save_path=tmp_path / "ppo", progress=False)
    assert (tmp_path / "ppo.zip").exists() and model.num_timesteps == 64
    action, _ = model.predict(np.zeros(151, dtype=np.float32), deterministic=True)
    assert action.shape == (7,)


def reacher_progress(obs: np.ndarray) -> float:
    """A user's progress function for Reacher-v5 (the README's): 1 at the target, 0 at 0.41 m."""
    return float(np.clip(1 - np.linalg.norm(obs[8:10]) / 0.41, 0, 1))


def test_ppo_on_stock_reacher_with_a_progress_function():
    pytest.importorskip("mujoco", reason="needs MuJoCo: bash scripts/setup.sh embodied")

    def final_distance(policy, episodes=10):
        env = gym.make("Reacher-v5")
        out = []
        for s in range(episodes):
            obs, _ = env.reset(seed=100 + s)
            for _ in range(50):
                obs, *_ = env.step(policy(obs))
            out.append(np.linalg.norm(obs[8:10]))
        env.close()
        return float(np.mean(out))

    # Reacher-v5 ends itself at 50 steps: world-model episodes stop at 10, a fifth of the simulation.
    wrap = lambda env: WorldModelWrapper(env, reacher_progress, wm_horizon=10)  # noqa: E731
    model = train_ppo("Reacher-v5", total_timesteps=4096, n_envs=2, seed=1, wrap=wrap,
                      n_steps=256, batch_size=128, learning_rate=1e-3, progress=False)
    trained = final_distance(lambda o: model.predict(o, deterministic=True)[0])
    still = final_distance(lambda o: np.zeros(2))
    assert trained < 0.8 * still
