"""WMRL/LIBERO-Long-v0: how well progress world models predict final success, measured as the text
world models are, on *held-out* init states (never used to fit the SFT policy or the learned model).

    python benchmarks/progress_fidelity.py --model DIR --demos FILE [--tasks 2 5 7] [--horizons 50 100 150 200]
                                           [--noise 0.3] [--stops 40 60 80] [--out DIR]

1. **Rollouts**: the SFT policy (``wmrl compare``'s starting policy, seed 0) from every held-out
   init state of each task, three ways: its mean action (``greedy``), its own samples
   (``sampled``), and its mean action with Gaussian arm noise ``--noise`` (``noisy``, a perturbed
   policy); each runs to ``--max-steps``, success is the real outcome. Kept in
   ``OUT/heldout_rollouts.npz`` (a rerun scores them again without simulating).
2. **Fidelity** at each ``--horizons`` step (a world-model episode stops there): AUC of the score
   for final success and Spearman with it, for ``PredicateProgress`` (goal atoms) and the learned
   model (``--model``, :mod:`wmrl_envs.world_models.learned_progress`), over all rollouts
   (``all``) and over the policy's own, greedy and sampled (``policy``: what GRPO produces).
3. **Gaming probe**: scripted "nudging" episodes: the expert for ``--stops`` steps, then the hand
   stops and opens until the horizon (objects moved toward the goal, never finished). Reported:
   their mean score and the share of them scoring at or above the median score of the rollouts
   that succeed (target: none).

Prints a table and writes ``OUT/progress_fidelity.json`` (default ``runs/embodied``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import table, write_json  # noqa: E402

import wmrl_envs  # noqa: E402, F401
from wmrl_agents.demos import split_init_states  # noqa: E402
from wmrl_agents.progress_fit import load_rollouts, policy_rollouts, save_rollouts, stalled_expert  # noqa: E402
from wmrl_envs.world_models.learned_progress import LearnedProgress  # noqa: E402
from wmrl_envs.world_models.progress import PredicateProgress  # noqa: E402


def scores_at(episodes: list[dict], horizon: int, learned: LearnedProgress) -> dict[str, np.ndarray]:
    """Each model's score of each episode at ``horizon`` (the last state, if it ended first)."""
    predicate = PredicateProgress()
    states = np.stack([e["obs"][min(horizon, len(e["obs"]) - 1)] for e in episodes])
    tasks = np.array([e["task"] for e in episodes])
    return {"learned": learned.progress(states, tasks),
            "predicate": np.array([predicate.predict({"atoms": e["atoms"][str(horizon)]}).score for e in episodes])}


def fidelity(episodes: list[dict], probe: list[dict], horizon: int, learned: LearnedProgress) -> list[dict]:
    """One row per model: AUC, Spearman, the probe's mean score and share at/above the successes' median."""
    success = np.array([e["success"] for e in episodes], dtype=float)
    scored, probed = scores_at(episodes, horizon, learned), scores_at(probe, horizon, learned)
    rows = []
    for name in ("predicate", "learned"):
        s = scored[name]
        median = float(np.median(s[success == 1])) if success.any() else float("nan")
        rows.append({"model": name, "horizon": horizon, "episodes": len(episodes), "successes": int(success.sum()),
                     "auc": float(roc_auc_score(success, s)) if 0 < success.sum() < len(success) else None,
                     "spearman": float(spearmanr(s, success).statistic),
                     "success_median": median, "nudge_mean": float(np.mean(probed[name])),
                     "nudge_at_or_above": float(np.mean(probed[name] >= median))})
    return rows


def probe_episodes(tasks: list[int], stops: list[int], horizons: list[int]) -> list[dict]:
    out = []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=task, max_steps=max(horizons))  # stalled until the last horizon
        try:
            for k, init in enumerate(split_init_states(task)[1]):
                stop = stops[k % len(stops)]
                out.append({**stalled_expert(env, init, stop, horizons), "task": task, "variant": f"stall@{stop}"})
        finally:
            env.close()
    return out


def main() -> None:
    from wmrl_agents.compare_libero import LiberoWorld

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True, help="learned progress checkpoint folder")
    p.add_argument("--demos", type=Path, required=True, help="demonstrations the SFT policy is fitted on")
    p.add_argument("--tasks", type=int, nargs="+", default=[2, 5, 7])
    p.add_argument("--horizons", type=int, nargs="+", default=[50, 100, 150, 200])
    p.add_argument("--noise", type=float, default=0.3, help="arm noise of the perturbed policy")
    p.add_argument("--stops", type=int, nargs="+", default=[40, 60, 80], help="steps the probe's expert acts")
    p.add_argument("--max-steps", type=int, default=400)
    p.add_argument("--out", type=Path, default=Path("runs/embodied"))
    args = p.parse_args()
    learned = LearnedProgress(args.model)
    cache = args.out / "heldout_rollouts.npz"
    if cache.exists():
        episodes = load_rollouts(cache)
    else:
        policy = LiberoWorld(tasks=args.tasks, demos=args.demos).policy(0)
        episodes = policy_rollouts(policy, args.tasks, lambda t: split_init_states(t)[1], ("greedy", "sampled", "noisy"),
                                   max_steps=args.max_steps, horizons=args.horizons, noise=args.noise)
        save_rollouts(episodes, cache)
    probe_cache = args.out / "probe_rollouts.npz"
    if probe_cache.exists():
        probe = load_rollouts(probe_cache)
    else:
        probe = probe_episodes(args.tasks, args.stops, args.horizons)
        save_rollouts(probe, probe_cache)
    own = [e for e in episodes if e["variant"] != "noisy"]  # what GRPO itself samples: the policy's mean and draws
    rows = [{"set": name, **r} for name, subset in (("all", episodes), ("policy", own))
            for h in args.horizons for r in fidelity(subset, probe, h, learned)]
    print(table(rows, ["set", "model", "horizon", "episodes", "successes", "auc", "spearman", "success_median",
                       "nudge_mean", "nudge_at_or_above"]))
    by_variant = {v: f"{sum(e['success'] for e in episodes if e['variant'] == v)}/"
                     f"{sum(e['variant'] == v for e in episodes)}" for v in ("greedy", "sampled", "noisy")}
    print("held-out success by variant:", by_variant)
    write_json("progress_fidelity", {"rows": rows, "success_by_variant": by_variant, "tasks": args.tasks,
                                     "model": str(args.model), "trained_on": learned.trained_on,
                                     "noise": args.noise, "stops": args.stops}, args.out)


if __name__ == "__main__":
    main()
