"""Env copies to step from threads: one episode each, one shared executor, world model and state.

A batch of GRPO episodes runs in threads, one env copy per episode in flight. :func:`spawn_env`
copies an env with its wrapper stack: the base env's ``spawn()`` (``MLEEnv`` has one) shares its
tasks, caches and sandbox executor, whose ``workers`` bound how many programs run at once; each
wrapper is copied shallowly, so the copies share what a wrapper holds across episodes (a
``MixingState``, the world model and its prediction batcher, an outcome table) and rebind their
per-episode fields at ``reset``.
"""

from __future__ import annotations

import copy

import gymnasium as gym


def spawn_env(env: gym.Env) -> gym.Env:
    """A copy of ``env`` to step from another thread (see the module docstring)."""
    if isinstance(env, gym.Wrapper):
        twin = copy.copy(env)
        twin.env = spawn_env(env.env)
        return twin
    spawn = getattr(env, "spawn", None)
    if spawn is None:
        raise TypeError(
            f"{type(env).__name__} cannot be copied for threads (it has no spawn()): pass a list of "
            "separately made env copies instead"
        )
    return spawn()


def can_spawn(env: gym.Env) -> bool:
    """Whether :func:`spawn_env` can copy ``env`` (its base env has ``spawn()``)."""
    return callable(getattr(env.unwrapped, "spawn", None))


def executor_workers(env: gym.Env) -> int:
    """How many programs ``env``'s sandbox executor runs at once (1 for an env without one)."""
    if not can_spawn(env):
        return 1
    return int(getattr(getattr(env.unwrapped, "executor", None), "workers", 1) or 1)


def env_copies(envs: gym.Env | list[gym.Env], concurrency: int | None = None) -> list[gym.Env]:
    """``envs`` topped up with spawned copies to ``concurrency`` envs (default: as many as the
    executor's workers, so programs in flight follow the executor, not the envs given)."""
    envs = [envs] if isinstance(envs, gym.Env) else list(envs)
    if not envs:
        raise ValueError("envs is empty: give at least one env")
    if concurrency is not None and int(concurrency) < 1:
        raise ValueError(f"concurrency must be a positive number of episodes, got {concurrency}")
    want = int(concurrency) if concurrency is not None else max(len(envs), executor_workers(envs[0]))
    while len(envs) < want:
        envs.append(spawn_env(envs[0]))
    return envs
