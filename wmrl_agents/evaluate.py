"""Real-execution evaluation of policies on every task of an env, exact where the policy allows.

A policy with a finite action set per task (``distribution(info) -> (probs, actions)``, e.g.
``TemplatePolicy``) is evaluated exactly; any other policy (e.g. ``ComposerPolicy``, whose program
space is too large to enumerate) by its greedy program and ``samples`` sampled ones:

    expected = Σ_a π(a | task) · reward(a, task)            (exact)
             ≈ (1/K) Σ_k reward(a_k, task),  a_k ~ π(·|task)  (sampled; unbiased)
    greedy   = reward(argmax π, task)

The k-th sample of a task uses the random stream ``(seed, task index, k)`` for every policy, so
policies compared in one evaluation share their random numbers (paired estimates). Outcomes come
from an :class:`~wmrl_envs.replay.OutcomeStore`: a program is run at most once per task, by any
policy, arm or later run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from wmrl_agents.grpo import EnvPool, env_task_ids
from wmrl_envs.replay import OutcomeStore, ReplayWrapper, action_key, replayable, task_key


class _Scripted:
    """Plays the program that a job's group key names."""

    def __init__(self, programs: dict[str, str]) -> None:
        self.programs = programs

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[str, None]:
        return self.programs[info["group"]], None


def _rng_of(seed: int, i: int) -> Callable[[int], np.random.Generator]:
    """The random stream ``(seed, task index i, sample k)`` of the k-th sample."""
    return lambda k: np.random.default_rng([seed, i, k])


def plan(policy, obs: object, info: dict, samples: int, rng_of: Callable[[int], np.random.Generator],
         progress: tqdm | None = None) -> tuple[np.ndarray, list[str], str]:
    """``(weights, programs, greedy program)`` of a task's first observation and reset info:
    expected score = weights · rewards(programs). ``progress`` moves once per program drawn (the
    whole distribution of an enumerable policy counts as one)."""

    def tick(x):
        if progress is not None:
            progress.update(1)
        return x

    if hasattr(policy, "distribution"):
        probs, programs = tick(policy.distribution(info))
        probs = np.asarray(probs, dtype=np.float64)
        return probs, list(programs), programs[int(np.argmax(probs))]
    greedy, _ = tick(policy.act_greedy(obs, info))
    drawn = [tick(policy.sample(obs, info, rng_of(k)))[0] for k in range(samples)]
    if not drawn:
        return np.ones(1), [greedy], greedy
    return np.full(len(drawn), 1.0 / len(drawn)), drawn, greedy


def evaluate_policies(
    make_env: Callable[[], gym.Env],
    policies: dict[str, object],
    workers: int = 2,
    store: OutcomeStore | None = None,
    progress: bool = True,
    samples: int = 4,
    seed: int = 0,
) -> dict[str, dict]:
    """Expected and greedy real-execution reward of each policy on every task of ``make_env()``.

    Returns ``{name: {"expected": mean, "greedy": mean, "per_task": {task: {...}}}}`` plus, under
    the key ``"_executions"``, how many programs had to run (the rest came from ``store``).
    ``progress``: a bar per program while the policies write them ("sampling programs": an LLM's
    generation is most of an evaluation's time, so the bar's ETA is the one to read), then one over
    the programs that run (none when every one is in ``store``).
    """
    store = store if store is not None else OutcomeStore(None)
    envs = [ReplayWrapper(make_env(), store) for _ in range(workers)]
    try:
        base = envs[0]
        firsts = {t: base.reset(options={"task_id": t}) for t in env_task_ids(base)}
        keys = {t: task_key(base.env, t) for t in firsts}
        drawn = sum(len(firsts) * (1 if hasattr(p, "distribution") else 1 + samples) for p in policies.values())
        with tqdm(total=drawn, desc="sampling programs", unit="program", disable=not progress, leave=False) as bar:
            plans = {
                name: {t: plan(policy, obs, info, samples, _rng_of(seed, i), bar)
                       for i, (t, (obs, info)) in enumerate(firsts.items())}
                for name, policy in policies.items()
            }
        needed: dict[str, tuple[str, str]] = {}  # store key -> (task, program)
        for task_plans in plans.values():
            for t, (_, programs, greedy) in task_plans.items():
                for prog in [*programs, greedy]:
                    k = action_key(keys[t], prog)
                    outcome = store.get(k)
                    if outcome is None or not replayable(outcome):
                        needed[k] = (t, prog)
        jobs = [(t, k, 0) for k, (t, _) in needed.items()]
        with tqdm(total=len(jobs), desc="running programs", unit="program", disable=not progress or not jobs,
                  leave=False) as bar:
            EnvPool(envs).run(jobs, _Scripted({k: p for k, (_, p) in needed.items()}), bar)
    finally:
        for e in envs:
            e.close()

    def reward(t: str, prog: str) -> float:
        outcome = store.get(action_key(keys[t], prog))
        if outcome is None:
            raise RuntimeError(f"evaluate_policies: the OutcomeStore has no outcome for task {t!r}, program "
                               f"{prog!r} after the programs ran (was the store cleared meanwhile?)")
        return float(outcome["reward"])

    out: dict[str, dict] = {"_executions": {"programs_run": len(jobs)}}
    for name, per_task_plan in plans.items():
        per_task = {
            t: {"expected": float(w @ np.array([reward(t, p) for p in programs])), "greedy": reward(t, greedy)}
            for t, (w, programs, greedy) in per_task_plan.items()
        }
        out[name] = {
            "expected": float(np.mean([v["expected"] for v in per_task.values()])),
            "greedy": float(np.mean([v["greedy"] for v in per_task.values()])),
            "per_task": per_task,
        }
    return out
