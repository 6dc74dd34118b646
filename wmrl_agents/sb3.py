"""PPO from stable-baselines3 on any Gymnasium env, LIBERO-Long included, used unmodified.

    from wmrl_agents.sb3 import train_ppo
    model = train_ppo("WMRL/LIBERO-Long-v0", total_timesteps=100_000, n_envs=2,
                      env_kwargs={"task_id": 7})

``wrap`` applies a wrapper to each env copy, e.g. world-model rewards:
``wrap=lambda env: WorldModelWrapper(env, PredicateProgress(), wm_horizon=200)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from gymnasium import spaces
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
from tqdm.auto import tqdm


class TqdmCallback(BaseCallback):
    """A tqdm bar over environment steps (SB3's own bar needs ``rich``)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, desc="PPO steps", leave=False)

    def _on_step(self) -> bool:
        if self.bar is not None:  # made at the training start
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


def policy_for(observation_space: spaces.Space) -> str:
    """SB3's policy class name for an observation space (``MultiInputPolicy`` for Dict)."""
    return "MultiInputPolicy" if isinstance(observation_space, spaces.Dict) else "MlpPolicy"


def make_env_fn(
    env_id: str, env_kwargs: dict | None = None, wrap: Callable[[gym.Env], gym.Env] | None = None
) -> Callable[[], gym.Env]:
    """A picklable-enough factory for ``make_vec_env`` (the simulator starts lazily in each worker)."""

    def make() -> gym.Env:
        import wmrl_envs  # noqa: F401  (registers the WMRL ids in subprocesses)

        env = gym.make(env_id, **(env_kwargs or {}))
        return wrap(env) if wrap is not None else env

    return make


def train_ppo(
    env_id: str,
    total_timesteps: int,
    n_envs: int = 1,
    seed: int = 0,
    env_kwargs: dict | None = None,
    wrap: Callable[[gym.Env], gym.Env] | None = None,
    subprocess: bool = False,
    save_path: str | Path | None = None,
    progress: bool = True,
    torch_threads: int | None = 1,
    **ppo_kwargs: Any,
) -> PPO:
    """Train PPO on ``n_envs`` copies of ``env_id`` and return the model (saved to ``save_path``).

    ``subprocess=True`` steps the copies in worker processes (each builds its own simulator);
    ``ppo_kwargs`` go to ``PPO`` (e.g. ``n_steps``, ``batch_size``, ``learning_rate``).
    ``torch_threads`` sets torch's (process-wide) thread count: SB3's small MLPs run several times
    faster on one thread than on contended ones; ``None`` leaves it alone.
    """
    if total_timesteps < 1 or n_envs < 1:
        raise ValueError(f"need total_timesteps >= 1 and n_envs >= 1, got {total_timesteps}, {n_envs}")
    if torch_threads is not None:
        torch.set_num_threads(torch_threads)
    vec_cls = SubprocVecEnv if subprocess and n_envs > 1 else DummyVecEnv
    venv = make_vec_env(make_env_fn(env_id, env_kwargs, wrap), n_envs=n_envs, seed=seed, vec_env_cls=vec_cls)
    model = PPO(policy_for(venv.observation_space), venv, seed=seed, verbose=0, **ppo_kwargs)
    try:
        callback = TqdmCallback(total_timesteps) if progress else None
        model.learn(total_timesteps=total_timesteps, callback=callback)
    finally:
        venv.close()
    if save_path is not None:
        model.save(str(save_path))
    return model
