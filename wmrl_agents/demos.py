"""Demonstrations for behaviour cloning on WMRL/LIBERO-Long-v0: a fixed train/held-out split of
each task's 50 init states, a recorder of successful scripted-expert rollouts from the train
states only, and a compact ``.npz`` format for them.

The file holds, for ``N`` steps over ``E`` successful episodes:

- ``obs`` (N, 151) float32: the env's ``"state"`` observation before each action;
- ``actions`` (N, 7) float32: the expert's actions;
- ``task`` (N,) int8: the libero_10 task index of each step;
- ``episode_task``, ``episode_init``, ``episode_start``, ``episode_length`` (E,) int32;
- ``instructions`` (10,) str: the task instructions, by task index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

N_INIT_STATES = 50  # shipped init states per libero_10 task
HELD_OUT = 10  # of them kept out of demonstrations and training
N_TASKS = 10


def split_init_states(
    task: int, n: int = N_INIT_STATES, held_out: int = HELD_OUT, seed: int = 0
) -> tuple[list[int], list[int]]:
    """A task's init-state indices as (train, held_out): a seeded permutation, deterministic for
    a given ``(task, n, held_out, seed)``; the held-out ones never go into demonstrations."""
    if not 0 <= held_out <= n:
        raise ValueError(f"need 0 <= held_out <= n, got {held_out=}, {n=}")
    order = np.random.default_rng([seed, int(task)]).permutation(n)
    return sorted(int(i) for i in order[held_out:]), sorted(int(i) for i in order[:held_out])


@dataclass
class Demos:
    """Recorded expert steps (see the module docstring for the arrays)."""

    obs: np.ndarray
    actions: np.ndarray
    task: np.ndarray
    episode_task: np.ndarray
    episode_init: np.ndarray
    episode_start: np.ndarray
    episode_length: np.ndarray
    instructions: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @property
    def episodes(self) -> int:
        return int(self.episode_task.shape[0])

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:  # a file object keeps savez from appending ".npz"
            np.savez_compressed(
                f, obs=self.obs.astype(np.float32), actions=self.actions.astype(np.float32),
                task=self.task.astype(np.int8), episode_task=self.episode_task.astype(np.int32),
                episode_init=self.episode_init.astype(np.int32),
                episode_start=self.episode_start.astype(np.int32),
                episode_length=self.episode_length.astype(np.int32),
                instructions=np.array(self.instructions, dtype=str),
            )
        return path

    @classmethod
    def load(cls, path: str | Path) -> Demos:
        with np.load(path, allow_pickle=False) as z:
            return cls(obs=z["obs"], actions=z["actions"], task=z["task"].astype(np.int64),
                       episode_task=z["episode_task"], episode_init=z["episode_init"],
                       episode_start=z["episode_start"], episode_length=z["episode_length"],
                       instructions=[str(s) for s in z["instructions"]])

    def select(self, tasks: Sequence[int]) -> Demos:
        """The episodes of these tasks only."""
        keep = [e for e in range(self.episodes) if int(self.episode_task[e]) in {int(t) for t in tasks}]
        episodes = [{"task": int(self.episode_task[e]), "init": int(self.episode_init[e]),
                     "obs": self.obs[self.episode_start[e] : self.episode_start[e] + self.episode_length[e]],
                     "actions": self.actions[self.episode_start[e] : self.episode_start[e] + self.episode_length[e]]}
                    for e in keep]
        if not episodes:
            return Demos.concat([])
        return Demos.from_episodes(episodes, self.instructions)

    @classmethod
    def concat(cls, parts: Sequence[Demos]) -> Demos:
        """One set from several (episode starts re-based; each task's first non-empty instruction)."""
        parts = [d for d in parts if d.episodes]
        if not parts:
            return cls.from_episodes([], [""] * N_TASKS)
        offsets = np.cumsum([0] + [len(d) for d in parts[:-1]])
        width = max(len(d.instructions) for d in parts)
        instructions = [next((d.instructions[i] for d in parts if i < len(d.instructions) and d.instructions[i]), "")
                        for i in range(width)]
        joined = {k: np.concatenate([getattr(d, k) for d in parts])
                  for k in ("obs", "actions", "task", "episode_task", "episode_init", "episode_length")}
        starts = np.concatenate([d.episode_start + o for d, o in zip(parts, offsets)])
        return cls(**joined, episode_start=starts.astype(np.int32), instructions=instructions)

    @classmethod
    def from_episodes(cls, episodes: Sequence[dict], instructions: Sequence[str]) -> Demos:
        """From dicts with ``task``, ``init``, ``obs`` (T, D) and ``actions`` (T, 7)."""
        lengths = np.array([len(e["actions"]) for e in episodes], dtype=np.int32)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int32)
        dim = episodes[0]["obs"].shape[1] if episodes else 0
        return cls(
            obs=np.concatenate([e["obs"] for e in episodes]) if episodes else np.zeros((0, dim), np.float32),
            actions=np.concatenate([e["actions"] for e in episodes]) if episodes else np.zeros((0, 7), np.float32),
            task=np.concatenate([np.full(n, e["task"]) for e, n in zip(episodes, lengths)]).astype(np.int64)
            if episodes else np.zeros(0, np.int64),
            episode_task=np.array([e["task"] for e in episodes], dtype=np.int32),
            episode_init=np.array([e["init"] for e in episodes], dtype=np.int32),
            episode_start=starts,
            episode_length=lengths,
            instructions=list(instructions),
        )


def _ignoring_info(act: Callable[[Any], np.ndarray]) -> Callable[[Any, dict], np.ndarray]:
    """``act(obs)`` as the ``act(obs, info)`` that :func:`rollout` calls."""
    return lambda obs, _info: act(obs)


def rollout(
    env: Any, act: Callable[[Any, dict], np.ndarray], init: int, seed: int = 0,
    on_reset: Callable[[], None] | None = None,
    perturb: Callable[[np.ndarray], np.ndarray] | None = None, horizons: Sequence[int] = (),
) -> dict:
    """One episode from init state ``init``; ``act(obs, info)`` picks actions (``on_reset`` runs
    after the reset). With ``perturb``, the env executes ``perturb(action)`` while the episode
    records ``action`` (DART-style noise injection: the expert's label at the states its noisy
    execution visits). Returns the observations before each action (the ``"state"`` entry of a
    Dict observation), the last observation (``last_obs``), the actions, success, steps, the env's
    simulator seconds, and the goal atoms at each step of ``horizons`` (``atoms``, keyed by the step
    as a string; at the end for a step the episode does not reach)."""
    obs, info = env.reset(seed=seed, options={"init_state": int(init)})
    if on_reset is not None:
        on_reset()
    observations, actions, atoms, sim_s, done = [], [], {}, 0.0, False
    while not done:
        action = np.asarray(act(obs, info), dtype=np.float32)
        observations.append(_state_of(obs))
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action if perturb is None else perturb(action))
        sim_s += float(info["cost"]["sim_s"])
        done = terminated or truncated
        for h in horizons:
            if str(h) not in atoms and (len(actions) == h or done):
                atoms[str(h)] = info["wm_context"]["atoms"]
    return {"obs": np.stack(observations), "last_obs": _state_of(obs), "actions": np.stack(actions),
            "success": bool(info["success"]), "steps": len(actions), "sim_s": sim_s,
            "instruction": info["instruction"], "atoms": atoms}


def _state_of(obs: Any) -> np.ndarray:
    return np.asarray(obs["state"] if isinstance(obs, dict) else obs, dtype=np.float32)




def arm_noise(std: float, rng: np.random.Generator) -> Callable[[np.ndarray], np.ndarray]:
    """A perturbation for :func:`rollout`: Gaussian noise of ``std`` on the arm's six action
    entries (the gripper command is kept), clipped to the action box."""

    def perturb(action: np.ndarray) -> np.ndarray:
        noisy = np.array(action, dtype=np.float32)
        noisy[:6] += rng.normal(0.0, std, 6)
        return np.clip(noisy, -1.0, 1.0)

    return perturb


def record_demos(
    tasks: Sequence[int], episodes_per_task: int, seed: int = 0, progress: Callable[[str], None] | None = None,
    noise: float = 0.0, first: int = 0,
) -> tuple[Demos, list[dict]]:
    """Run the scripted expert from train init states ``first .. first + episodes_per_task - 1``
    of each task; keep the successful episodes. With ``noise`` > 0 the executed actions carry
    that much Gaussian arm noise while the recorded ones are the expert's (:func:`arm_noise`).
    Returns the demonstrations and one stats row per task."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401
    from wmrl_agents.expert import ScriptedExpert
    from wmrl_envs.embodied import suite

    instructions = [""] * N_TASKS
    kept, rows = [], []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=int(task))
        expert = ScriptedExpert(env)
        train, _ = split_init_states(task, seed=seed)
        runs = []
        start = time.perf_counter()
        chosen = train[first : first + episodes_per_task]
        rng = np.random.default_rng([seed, int(task)])
        for init in chosen:
            run = rollout(env, _ignoring_info(expert.act), init, seed=seed,
                              on_reset=expert.reset, perturb=arm_noise(noise, rng) if noise else None)
            instructions[int(task)] = run["instruction"]
            runs.append(run)
            if run["success"]:
                kept.append({"task": int(task), "init": int(init), "obs": run["obs"], "actions": run["actions"]})
            if progress:
                progress(f"task {task} init {init}: success={run['success']} steps={run['steps']}")
        env.close()
        rows.append({
            "task": int(task), "name": suite.task_names()[int(task)][:48], "episodes": len(runs),
            "success": float(np.mean([r["success"] for r in runs])) if runs else 0.0,
            "steps/ep": float(np.mean([r["steps"] for r in runs])) if runs else 0.0,
            "sim_s/ep": float(np.mean([r["sim_s"] for r in runs])) if runs else 0.0,
            "wall_s": time.perf_counter() - start,
            "inits": [int(i) for i in chosen],
            "successes": [bool(r["success"]) for r in runs],
        })
    return Demos.from_episodes(kept, instructions), rows
