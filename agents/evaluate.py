"""Real-execution evaluation of a policy on every task of an env, exact where the policy allows.

A policy with a finite action set per task (``distribution(info) -> (probs, actions)``, e.g.
``TemplatePolicy``) is evaluated exactly: each of its programs runs once per task, and

    expected score = Σ_a π(a | task) · reward(a, task),     greedy score = reward(argmax π, task).

Programs are deterministic (seeded models), so an outcome is cached on disk by task content and
program hash: arms that share programs, and later runs, never execute one twice. Any other policy is
evaluated by its greedy action (``act_greedy``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from agents.grpo import EnvPool
from wmrl_envs.mle.build import cache_dir


class OutcomeCache:
    """``key -> reward`` in a JSON file, written atomically after every new outcome."""

    def __init__(self, path: str | os.PathLike | None) -> None:
        self.path = None if path is None else Path(path)
        self._data: dict[str, float] = {}
        self._lock = threading.Lock()
        if self.path is not None and self.path.exists():
            self._data = json.loads(self.path.read_text())

    def get(self, key: str) -> float | None:
        return self._data.get(key)

    def put(self, key: str, reward: float) -> None:
        with self._lock:
            self._data[key] = float(reward)
            if self.path is None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".outcomes-")
            with os.fdopen(fd, "w") as f:
                json.dump(self._data, f)
            os.replace(tmp, self.path)


def default_cache(env_id: str) -> OutcomeCache:
    return OutcomeCache(cache_dir() / "outcomes" / f"{env_id.replace('/', '_')}.json")


def _task_key(env: gym.Env, task_id: str) -> str:
    """Changes when the task's answers or leaderboard change (a rebuilt board re-scores)."""
    task = env.unwrapped.tasks[task_id]
    h = hashlib.sha256(task.answers_path.read_bytes())
    for p in task.board_paths:
        h.update(Path(p).read_bytes())
    h.update(env.unwrapped.reward_mode.encode())
    return f"{task_id}:{h.hexdigest()[:16]}"


def _outcome_key(task_key: str, program: str) -> str:
    return f"{task_key}:{hashlib.sha256(program.encode()).hexdigest()[:16]}"


class _Scripted:
    """Plays the program that a job's group key names."""

    def __init__(self, programs: dict[str, str]) -> None:
        self.programs = programs

    def sample(self, obs, info, rng):
        return self.programs[info["group"]], None


def evaluate_policies(
    make_env: Callable[[], gym.Env],
    policies: dict[str, object],
    workers: int = 2,
    cache: OutcomeCache | None = None,
    progress: bool = True,
) -> dict[str, dict]:
    """Expected and greedy real-execution reward of each policy on every task of ``make_env()``.

    Returns ``{name: {"expected": mean, "greedy": mean, "per_task": {task: {...}}}}`` plus, under
    the key ``"_executions"``, how many programs had to run (the rest came from the cache).
    """
    cache = cache or OutcomeCache(None)
    envs = [make_env() for _ in range(workers)]
    try:
        base = envs[0]
        contexts = {}
        for t in base.unwrapped.task_ids:
            _, info = base.reset(options={"task_id": t})
            contexts[t] = info
        keys = {t: _task_key(base, t) for t in contexts}
        plans: dict[str, dict[str, tuple[np.ndarray, list[str]]]] = {}
        needed: dict[str, tuple[str, str]] = {}  # cache key -> (task, program)
        for name, policy in policies.items():
            plans[name] = {}
            for t, info in contexts.items():
                if hasattr(policy, "distribution"):
                    probs, programs = policy.distribution(info)
                else:
                    program, _ = policy.act_greedy(None, info)
                    probs, programs = np.ones(1), [program]
                plans[name][t] = (np.asarray(probs, dtype=np.float64), list(programs))
                for prog in programs:
                    k = _outcome_key(keys[t], prog)
                    if cache.get(k) is None:
                        needed[k] = (t, prog)
        jobs = [(t, k, 0) for k, (t, _) in needed.items()]
        with tqdm(total=len(jobs), desc="evaluating programs", disable=not progress, leave=False) as bar:
            episodes = EnvPool(envs).run(jobs, _Scripted({k: p for k, (_, p) in needed.items()}), bar)
        for (_, k, _), ep in zip(jobs, episodes):
            cache.put(k, ep.reward)
    finally:
        for e in envs:
            e.close()

    out: dict[str, dict] = {"_executions": {"programs_run": len(jobs)}}
    for name, plan in plans.items():
        per_task = {}
        for t, (probs, programs) in plan.items():
            rewards = np.array([cache.get(_outcome_key(keys[t], p)) for p in programs])
            per_task[t] = {"expected": float(probs @ rewards), "greedy": float(rewards[int(np.argmax(probs))])}
        out[name] = {
            "expected": float(np.mean([v["expected"] for v in per_task.values()])),
            "greedy": float(np.mean([v["greedy"] for v in per_task.values()])),
            "per_task": per_task,
        }
    return out
