"""WMRL/LIBERO-Long-v0: how well progress world models predict final success, measured as the text
world models are, on *held-out* init states (never used to fit the SFT policy or the learned model).

    python benchmarks/progress_fidelity.py --model DIR [DIR ...] --demos FILE [--tasks 2 5 7] [--samples 8]
                                           [--horizons 50 100 150 200] [--noise 0.3] [--stops 40 60 80] [--out DIR]

1. **Rollouts**: the SFT policy (``wmrl compare``'s starting policy, seed 0) from every held-out
   init state of each task, three ways: its mean action (``greedy``), its own samples
   (``sampled``, ``--samples`` per init state: a GRPO group), and its mean action with Gaussian arm
   noise ``--noise`` (``noisy``, a perturbed policy); each runs to ``--max-steps``, success is the
   real outcome. Kept in ``OUT/heldout_rollouts.npz`` (a rerun scores them again without simulating).
2. **Fidelity** at each ``--horizons`` step (a world-model episode stops there): AUC of the score
   for final success, pooled and within groups (pairs from one task and init state: the only
   differences GRPO uses; also per task), and Spearman with it, for ``PredicateProgress`` (goal
   atoms) and the learned models (``--model``, :mod:`wmrl_envs.world_models.learned_progress`), over all rollouts
   (``all``) and over the policy's own, greedy and sampled (``policy``: what GRPO produces).
3. **Gaming probe**: scripted "nudging" episodes: the expert for ``--stops`` steps, then the hand
   stops and opens until the horizon (objects moved toward the goal, never finished). Reported:
   their mean score and the share of them scoring at or above the median score of the rollouts
   that succeed (target: none).

4. **Groups below a spread** (``--spreads``, for ``MixingConfig.min_wm_spread``): over the sampled
   groups (one task and init state, ``--samples`` draws), the share whose scores span less than
   each threshold (the groups the option would leave out), how many of those the real outcomes
   split (signal a real run would have had) and the within-group AUC of the groups left out and
   kept: left-out groups ordered near 0.5 are noise, well above 0.5 is signal the option throws away.

Prints the tables and writes ``OUT/progress_fidelity.json`` (default ``runs/embodied``).
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


def scores_at(episodes: list[dict], horizon: int, learned: dict[str, LearnedProgress]) -> dict[str, np.ndarray]:
    """Each model's score of each episode at ``horizon`` (the last state, if it ended first)."""
    predicate = PredicateProgress()
    states = np.stack([e["obs"][min(horizon, len(e["obs"]) - 1)] for e in episodes])
    tasks = np.array([e["task"] for e in episodes])
    return {"predicate": np.array([predicate.predict({"atoms": e["atoms"][str(horizon)]}).score for e in episodes]),
            **{name: model.progress(states, tasks) for name, model in learned.items()}}


def group_pairs(scores: np.ndarray, success: np.ndarray, groups: list[tuple]) -> np.ndarray:
    """What GRPO uses: for every (success, failure) pair *from one group* (task and init state),
    the success's score minus the failure's (> 0: ordered right)."""
    diffs = []
    for g in set(groups):
        rows = np.array([k == g for k in groups])
        won, lost = scores[rows & (success == 1)], scores[rows & (success == 0)]
        diffs.append((won[:, None] - lost[None, :]).ravel())
    return np.concatenate(diffs) if diffs else np.zeros(0)


def within_group(diffs: np.ndarray) -> dict:
    """AUC within groups (ties count half), and the share ordered right in each quartile of the
    pairs' score gap ``|diff|``: how far a group's spread can be trusted. Where small gaps are coin
    flips, normalising each group by its own spread (``--normalize group``) turns them into
    full-size advantages."""
    if not len(diffs):
        return {"auc_within": None, "pairs_within": 0, "right_by_gap_quartile": None}
    gap = np.abs(diffs)
    edges = np.quantile(gap, [0.25, 0.5, 0.75])
    quartile = np.searchsorted(edges, gap, side="left")
    right = (diffs > 0) + 0.5 * (diffs == 0)
    return {"auc_within": float(right.mean()), "pairs_within": len(diffs),
            "right_by_gap_quartile": [float(right[quartile == q].mean()) if (quartile == q).any() else None
                                      for q in range(4)]}


def fidelity(episodes: list[dict], probe: list[dict], horizon: int, learned: dict[str, LearnedProgress]) -> list[dict]:
    """One row per model: AUC (pooled and within groups), Spearman, the probe's mean score and share
    at/above the successes' median."""
    success = np.array([e["success"] for e in episodes], dtype=float)
    groups = [(e["task"], e["init"]) for e in episodes]
    tasks = np.array([e["task"] for e in episodes])
    scored, probed = scores_at(episodes, horizon, learned), scores_at(probe, horizon, learned)
    rows = []
    for name, s in scored.items():
        median = float(np.median(s[success == 1])) if success.any() else float("nan")
        rows.append({"model": name, "horizon": horizon, "episodes": len(episodes), "successes": int(success.sum()),
                     "auc": float(roc_auc_score(success, s)) if 0 < success.sum() < len(success) else None,
                     **within_group(group_pairs(s, success, groups)),
                     "auc_within_by_task": {str(t): within_group(group_pairs(
                         s[tasks == t], success[tasks == t], [g for g in groups if g[0] == t]))["auc_within"]
                         for t in sorted(set(tasks.tolist()))},
                     "spearman": float(spearmanr(s, success).statistic),
                     "success_median": median, "nudge_mean": float(np.mean(probed[name])),
                     "nudge_at_or_above": float(np.mean(probed[name] >= median))})
    return rows


def groups_below(scores: np.ndarray, success: np.ndarray, keys: list[tuple], spreads: list[float]) -> list[dict]:
    """Per threshold: the groups (``keys``) whose scores span less than it, how many of them the real
    outcomes split, and the within-group AUC of the groups left out and of those kept."""
    members = {g: np.array([k == g for k in keys]) for g in set(keys)}
    span = {g: float(np.ptp(scores[m])) for g, m in members.items()}
    split = {g: bool(0 < success[m].sum() < m.sum()) for g, m in members.items()}
    rows = []
    for x in spreads:
        out = {g for g, v in span.items() if v < x}
        auc = {}
        for part, chosen in (("left_out", out), ("kept", set(span) - out)):
            rows_in = np.array([k in chosen for k in keys], dtype=bool)
            auc[part] = within_group(group_pairs(scores[rows_in], success[rows_in],
                                                 [k for k in keys if k in chosen]))["auc_within"]
        rows.append({"min_wm_spread": x, "groups": len(span), "left_out": len(out),
                     "left_out_split": sum(int(split[g]) for g in out), "split_groups": sum(map(int, split.values())),
                     "auc_within_left_out": auc["left_out"], "auc_within_kept": auc["kept"]})
    return rows


def spread_rows(episodes: list[dict], horizon: int, learned: dict[str, LearnedProgress],
                spreads: list[float]) -> list[dict]:
    """Section 4 for each model, over the sampled groups."""
    sampled = [e for e in episodes if e["variant"] == "sampled"]
    success = np.array([e["success"] for e in sampled], dtype=float)
    keys = [(e["task"], e["init"]) for e in sampled]
    return [{"model": name, "horizon": horizon, **row}
            for name, s in scores_at(sampled, horizon, learned).items()
            for row in groups_below(s, success, keys, spreads)]


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
    p.add_argument("--model", type=Path, nargs="+", required=True,
                   help="learned progress checkpoint folders, scored side by side under their folder names")
    p.add_argument("--demos", type=Path, required=True, help="demonstrations the SFT policy is fitted on")
    p.add_argument("--tasks", type=int, nargs="+", default=[2, 5, 7])
    p.add_argument("--horizons", type=int, nargs="+", default=[50, 100, 150, 200])
    p.add_argument("--noise", type=float, default=0.3, help="arm noise of the perturbed policy")
    p.add_argument("--stops", type=int, nargs="+", default=[40, 60, 80], help="steps the probe's expert acts")
    p.add_argument("--samples", type=int, default=1,
                   help="sampled episodes per init state; 8 makes GRPO-sized groups, scored for within-group ranking")
    p.add_argument("--max-steps", type=int, default=400)
    p.add_argument("--spreads", type=float, nargs="+", default=[0.04, 0.08, 0.16],
                   help="min_wm_spread thresholds to score on the sampled groups (section 4)")
    p.add_argument("--out", type=Path, default=Path("runs/embodied"))
    args = p.parse_args()
    learned = {folder.name: LearnedProgress(folder) for folder in args.model}
    cache = args.out / "heldout_rollouts.npz"
    if cache.exists():
        episodes = load_rollouts(cache)
    else:
        policy = LiberoWorld(tasks=args.tasks, demos=args.demos).policy(0)
        episodes = policy_rollouts(policy, args.tasks, lambda t: split_init_states(t)[1], ("greedy", "sampled", "noisy"),
                                   max_steps=args.max_steps, horizons=args.horizons, noise=args.noise,
                                   samples=args.samples)
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
    shown = [{**r, "right_by_gap_quartile": "/".join("-" if v is None else f"{v:.2f}"
                                                      for v in r["right_by_gap_quartile"] or [])} for r in rows]
    print(table(shown, ["set", "model", "horizon", "episodes", "successes", "auc", "auc_within", "pairs_within",
                        "right_by_gap_quartile", "spearman", "success_median",
                        "nudge_mean", "nudge_at_or_above"]))
    by_variant = {v: f"{sum(e['success'] for e in episodes if e['variant'] == v)}/"
                     f"{sum(e['variant'] == v for e in episodes)}" for v in ("greedy", "sampled", "noisy")}
    print("held-out success by variant:", by_variant)
    spread = [r for h in args.horizons for r in spread_rows(episodes, h, learned, args.spreads)]
    print(table(spread, ["model", "horizon", "min_wm_spread", "groups", "left_out", "left_out_split",
                         "split_groups", "auc_within_left_out", "auc_within_kept"]))
    write_json("progress_fidelity", {"rows": rows, "spread": spread, "success_by_variant": by_variant, "tasks": args.tasks,
                                     "models": {name: {"path": str(folder), "trained_on": learned[name].trained_on}
                                                for name, folder in zip(learned, args.model)},
                                     "noise": args.noise, "stops": args.stops}, args.out)


if __name__ == "__main__":
    main()
