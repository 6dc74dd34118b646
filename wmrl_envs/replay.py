"""A table of real outcomes, and a wrapper that replays them while charging their recorded cost.

Text-env programs are deterministic (seeded models, fixed data), so a program's outcome on a task
is a fact that can be stored once and reused: by later seeds, by other arms, by the held-out
evaluation and by the controlled-fidelity study. Reuse must never make anything look cheaper, so a
replayed step returns the *recorded* ``info["cost"]`` (sandbox CPU-seconds and all): every use is
charged exactly as if it had run. ``info["replayed"]`` says which steps came from the table.

    key(step) = task content hash : sha256(action_1) : ... : sha256(action_t)

A task's content hash changes with its answers, its leaderboards, the env's reward mode and the
run limits, so a rebuilt board or another time limit never serves stale rewards. The table is one JSON-lines file (one
outcome per line,
appended under an exclusive lock): a crash loses at most the line being written, and several
processes can share it.

The table is env-side machinery (it hashes an MLE env's task files, reward mode and limits), so it
lives in ``wmrl_envs``; ``wmrl_agents.replay``, its former home, re-exports it, deprecated.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym

from wmrl_envs.mle.build import cache_dir


class OutcomeStore:
    """``key -> step record`` (``obs``, ``reward``, ``terminated``, ``truncated``, ``info``).

    Args:
        path: the JSON-lines file (None: in memory only). Lines other processes append are read
            when a key is missing.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._data: dict[str, dict] = {}
        self._offset = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self._refresh()

    def __len__(self) -> int:
        return len(self._data)

    def _refresh(self) -> None:
        """Read lines appended since the last read (a torn last line is skipped until complete)."""
        if self.path is None or not self.path.exists():
            return
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            for line in f:
                if not line.endswith(b"\n"):
                    break
                self._offset += len(line)
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:  # a line torn by a crash: skip it
                    continue
                self._data[rec["key"]] = rec["outcome"]

    def get(self, key: str) -> dict | None:
        with self._lock:
            if key not in self._data:
                self._refresh()
            out = self._data.get(key)
            if out is None:
                self.misses += 1
            else:
                self.hits += 1
            return out

    def put(self, key: str, outcome: dict) -> None:
        line = (json.dumps({"key": key, "outcome": outcome}) + "\n").encode()
        with self._lock:
            self._data[key] = outcome
            if self.path is None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "ab") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
                try:
                    f.write(line)
                finally:
                    fcntl.flock(f, fcntl.LOCK_UN)


def default_store(env_id: str) -> OutcomeStore:
    """The user's shared outcome table for ``env_id`` (under the wmrl cache directory)."""
    return OutcomeStore(cache_dir() / "outcomes" / f"{env_id.replace('/', '_')}.jsonl")


def task_key(env: gym.Env, task_id: str) -> str:
    """Names a task's content: changes when its answers, boards, the env's reward mode, turns,
    the run limits or the sandbox backend change (a warm run's recorded CPU is not a cold one's,
    nor is it after the warm zygote's imports change)."""
    from wmrl_envs.mle.env import MLEEnv

    base = env.unwrapped
    if not isinstance(base, MLEEnv):
        raise TypeError(f"task_key needs an MLEEnv under the wrappers (it hashes the task's files, reward mode "
                        f"and limits), got {type(base).__name__}")
    task = base.tasks[task_id]
    h = hashlib.sha256(task.answers_path.read_bytes())
    for p in task.board_paths:
        h.update(Path(p).read_bytes())
    h.update(base.reward_mode.encode())
    h.update(str(base.max_turns).encode())
    h.update(repr(base.limits_for(task)).encode())  # a time limit changes what a program scores
    h.update(base.executor.name.encode())
    h.update(repr(getattr(base.executor, "preload", ())).encode())  # a zygote that imports more charges less
    return f"{task_id}:{h.hexdigest()[:16]}"


def action_key(prefix: str, action: Any) -> str:
    return f"{prefix}:{hashlib.sha256(str(action).encode()).hexdigest()[:16]}"


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and tuples made plain, so a record round-trips through JSON."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if hasattr(v, "item") else str(v)))


class ReplayWrapper(gym.Wrapper):
    """Answers a text env's steps from an :class:`OutcomeStore`, running only unseen ones.

    The replayed ``info`` is the recorded one (costs included) plus ``info["replayed"] = True``;
    an executed step is stored before it is returned. Put it directly around the real env, under
    any world-model wrapper, so that only executions are cached.
    """

    def __init__(self, env: gym.Env, store: OutcomeStore) -> None:
        super().__init__(env)
        if not isinstance(env.action_space, gym.spaces.Text):
            raise ValueError("ReplayWrapper needs a text env (programs as actions); this env's actions are not text")
        self.store = store
        self._keys: dict[str, str] = {}
        self._prefix = ""
        self._reset_obs: Any = None
        self._reset_info: dict = {}
        self._actions: list[Any] = []
        self._inner_at = 0  # how many of this episode's actions the inner env has really taken

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        task_id = info["task_id"]
        if task_id not in self._keys:
            self._keys[task_id] = task_key(self.env, task_id)
        self._prefix = self._keys[task_id]
        self._reset_obs, self._reset_info = obs, info
        self._actions, self._inner_at = [], 0
        return obs, info

    def step(self, action: Any):
        self._actions.append(action)
        self._prefix = action_key(self._prefix, action)
        hit = self.store.get(self._prefix)
        if hit is not None:
            info = {**hit["info"], "replayed": True, "group": self._reset_info.get("group")}
            return hit["obs"], float(hit["reward"]), bool(hit["terminated"]), bool(hit["truncated"]), info
        for earlier in self._actions[self._inner_at : -1]:  # a multi-turn episode whose prefix was replayed
            self.env.step(earlier)
        self._inner_at = len(self._actions)
        obs, reward, terminated, truncated, info = self.env.step(action)
        outcome = {"obs": obs, "reward": float(reward), "terminated": bool(terminated),
                   "truncated": bool(truncated), "info": _jsonable({k: v for k, v in info.items() if k != "group"})}
        self.store.put(self._prefix, outcome)
        return obs, float(reward), terminated, truncated, {**info, "replayed": False}
