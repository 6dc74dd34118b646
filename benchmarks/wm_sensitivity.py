"""Controlled-fidelity study: how WMRL and its ablations respond to a world model's distortion, noise
and blind spot, measured against real GRPO on the same programs.

    python benchmarks/wm_sensitivity.py [--seeds 5] [--pool 64] [--configs all] [--out runs/wm_sensitivity]

The policy is the composer restricted to a fixed pool of programs (``wmrl_agents/pool.py``). Every pool
program is run once for real on every train and held-out task (the outcome table, shared with
``wmrl compare``'s cache), so:

- the world models are INSTRUMENTS made from that table (``benchmarks/_instruments.py``): the real
  reward through a known monotone distortion ``r^γ``, plus fixed per-program noise of size ``σ``,
  and a blind spot that scores the composer's broken-output variants like good programs (0.6-1);
  ``task-distorted`` gives the train tasks alternating exponents (γ = 0.25, 4): a bias that differs
  by task (compare ``--mixing calibration=per-task`` against the pooled map);
- held-out scores are exact (``Σ_a π(a|task) r(a, task)`` over the pool), and compute is charged
  from the table's recorded sandbox CPU-seconds, as in ``wmrl compare``.

Each configuration trains the four arms of ``wmrl compare`` (real, wmrl, wmrl-no-debias,
wmrl-no-denoise) over the same seeds; the table gives the held-out score (mean, 95% interval), each
arm's paired difference to real GRPO and each ablation's paired difference to full WMRL. Debiasing
should matter under distortion, denoising under noise; the blind spot shows what neither fixes.
Writes ``DIR/wm_sensitivity.json`` and ``DIR/wm_sensitivity.png``, and each configuration's full compare
results and curves under ``DIR/<config>/`` (``results.json``, ``compare.png``).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

import gymnasium as gym
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _instruments import TableWorldModel, program_hash  # noqa: E402
from _report import table, write_json  # noqa: E402

import wmrl_envs  # noqa: E402,F401
from wmrl_agents.compare import ARMS, Budget, compare, program_limits  # noqa: E402
from wmrl_agents.compare_text import TextWorld  # noqa: E402
from wmrl_agents.evaluate import evaluate_policies  # noqa: E402
from wmrl_agents.pool import PoolPolicy, choice_of, uniform_pool  # noqa: E402
from wmrl_agents.stats import fmt, interval, paired  # noqa: E402
from wmrl_envs.mixing import MixingConfig  # noqa: E402
from wmrl_envs.mixing.config import advantage_setting  # noqa: E402
from wmrl_envs.replay import OutcomeStore, action_key, task_key  # noqa: E402
from wmrl_envs.settings import parse_bool, parse_settings  # noqa: E402

ENV_ID = "WMRL/MLEDojo-v0"
LIMITS = program_limits(20.0)  # the same per-program cap as `wmrl compare`
TRAIN_TASKS = ["concrete-strength", "employee-attrition", "hpc-jobs", "seattle-weather"]
# Output variants that write a broken submission (wrong ids, rows, types or classes, or a fallback).
BLIND_OUTPUTS = ("wrong_type", "ids_range", "head50", "sorted", "wrong_class", "try_fallback")
CONFIGS = {  # name: (gamma, sigma, blind spot)
    "exact": (1.0, 0.0, False),
    "noise-0.1": (1.0, 0.1, False),
    "noise-0.25": (1.0, 0.25, False),
    "distorted": (4.0, 0.0, False),
    "distorted+noise-0.1": (4.0, 0.1, False),
    "distorted+noise-0.25": (4.0, 0.25, False),
    "blind-spot": (1.0, 0.1, True),
    "task-distorted": (1.0, 0.0, False),
}
# Configs whose distortion differs by task: the train tasks in order alternate between these exponents
# (0.25 overrates a task's weak programs, 4 underrates its good ones), a bias one pooled map averages.
TASK_GAMMAS = {"task-distorted": (0.25, 4.0)}


class Table:
    """The pool's real outcomes on every task: lookups for the instruments, and a summary."""

    def __init__(self, pool: list[tuple[int, ...]], tasks: dict[str, list[str]], store: OutcomeStore, workers: int) -> None:
        self.pool, self.store = pool, store
        self.keys: dict[str, str] = {}
        self.programs: dict[str, list[str]] = {}
        self.summary = {}
        for split, ids in tasks.items():
            make = lambda split=split, ids=ids: gym.make(ENV_ID, split=split, tasks=ids, **LIMITS)  # noqa: E731
            policy = PoolPolicy(pool)
            res = evaluate_policies(make, {"pool": policy}, workers, store, progress=True, samples=0)
            env = make()
            for t in ids:
                self.keys[t] = task_key(env, t)
                self.programs[t] = policy.programs(env.reset(options={"task_id": t})[1]["wm_context"])
            env.close()
            self.summary[split] = self._describe(ids, res["_executions"]["programs_run"])

    def outcome(self, task: str, program: str) -> dict | None:
        key = self.keys.get(task)
        return None if key is None else self.store.get(action_key(key, program))

    def reward(self, task: str, program: str) -> float | None:
        out = self.outcome(task, program)
        return None if out is None else float(out["reward"])

    def _describe(self, ids: list[str], ran: int) -> dict:
        outs = [self.outcome(t, p) for t in ids for p in self.programs[t]]
        rewards = np.array([o["reward"] for o in outs])
        return {"tasks": ids, "programs": len(outs), "executed_now": ran,
                "ok_share": float(np.mean([o["info"].get("status") == "ok" for o in outs])),
                "floor_share": float(np.mean(rewards <= 0.1)), "mean_reward": float(rewards.mean()),
                "best_mean_reward": float(np.mean([max(self.reward(t, p) for p in self.programs[t]) for t in ids])),
                "cpu_s_per_program": float(np.mean([o["info"]["cost"]["exec_cpu_s"] for o in outs]))}

    def blind_spot(self) -> set[str]:
        """Hashes of every task's programs whose output variant is a broken one."""
        out = BLIND_OUTPUTS
        return {program_hash(t, progs[i]) for t, progs in self.programs.items()
                for i, a in enumerate(self.pool) if choice_of(a)["output"] in out}


def run(args: argparse.Namespace) -> dict:
    pool = uniform_pool(args.pool, seed=0)
    cache = Path(args.cache) if args.cache else None
    store = OutcomeStore((cache / f"{ENV_ID.replace('/', '_')}.jsonl") if cache else None) if cache else None
    if store is None:
        from wmrl_envs.replay import default_store

        store = default_store(ENV_ID)
    tasks = {"train": args.train_tasks, "heldout": args.heldout_tasks}
    t0 = time.perf_counter()
    tab = Table(pool, tasks, store, args.workers)
    blind = tab.blind_spot()
    budget = Budget(eval_every=args.eval_every).scaled(args.budget)
    results = {}
    for name in args.configs:
        gamma, sigma, has_blind = CONFIGS[name]
        spread = TASK_GAMMAS.get(name, ())
        task_gamma = {t: spread[k % len(spread)] for k, t in enumerate(args.train_tasks)} if spread else None
        wm = TableWorldModel(tab.reward, gamma, sigma, blind if has_blind else (), seed=0, task_gamma=task_gamma)
        print(f"[{name}] gamma={gamma} sigma={sigma} blind={has_blind}", flush=True)
        results[name] = compare(family=TextWorld(agent=lambda seed: PoolPolicy(pool, seed=seed), workers=args.workers,
                                                 env_id=ENV_ID, world_model=wm, dsbench=False, cache=cache, tasks=tasks,
                                                 progress=False),
                                budget=budget, arms=tuple(args.arms), seeds=args.seeds, out=Path(args.out) / name,
                                progress=False, mixing=args.mixing, **args.advantage)
    return {"table": tab.summary, "pool": len(pool), "blind_programs_per_task": len(blind) / len(tab.programs),
            "budget": budget.__dict__, "seeds": args.seeds, "mixing": args.mixing_spec,
            "configs": {k: CONFIGS[k] for k in args.configs},
            "task_gammas": {k: TASK_GAMMAS[k] for k in args.configs if k in TASK_GAMMAS},
            "results": {k: _rows(k, v, args.arms) for k, v in results.items()}, "wall_s": time.perf_counter() - t0}


def mixing_config(spec: str) -> MixingConfig | None:
    """``"k=v,..."`` as a ``MixingConfig`` (None for ""): each value is parsed as its field's type."""
    if not spec.strip():
        return None
    types = {f.name: parse_bool if isinstance(f.default, bool) else type(f.default) for f in fields(MixingConfig)}
    return MixingConfig.make(None, **parse_settings(spec, types, "--mixing (MixingConfig fields)"))


def split_advantage(spec: str) -> tuple[str, dict]:
    """``--mixing`` without ``normalize``/``eps`` (MixingConfig fields until 0.3, every arm's
    advantage setting since: ``compare(normalize=, eps=)``), and those two, checked."""
    parts = [p for p in spec.split(",") if p.strip()]
    mine = [p for p in parts if p.split("=")[0].strip() in ("normalize", "eps")]
    given = {k.strip(): v.strip() for k, v in (p.split("=", 1) for p in mine)}
    advantage = advantage_setting(given.get("normalize", "none"), float(given.get("eps", 1e-4)))
    return ",".join(p for p in parts if p not in mine), advantage


def _rows(config: str, res: dict, arms: list[str]) -> list[dict]:
    runs = res["runs"]
    per = {arm: [runs[s][arm]["heldout"] for s in runs] for arm in arms}
    rows = []
    for arm in arms:
        s = res["summary"][arm]
        rows.append({
            "config": config, "arm": arm, "heldout": interval(per[arm]),
            "vs_real": paired(per[arm], per["real"]) if arm != "real" else None,
            "vs_wmrl": paired(per[arm], per["wmrl"]) if arm.startswith("wmrl-") and "wmrl" in per else None,
            "compute_s": s["compute_s"], "compute_ratio": s["compute_ratio"],
            "wm_spearman": s.get("wm_spearman"),
            "final_anchor_rate": interval([(runs[k][arm]["train_curve"] or [{}])[-1].get("mixing/anchor_rate") for k in runs]),
        })
    return rows


def plot(payload: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = list(payload["results"])
    fig, ax = plt.subplots(figsize=(11, 4.2))
    arms = [r["arm"] for r in payload["results"][configs[0]] if r["arm"] != "real"]
    width = 0.8 / len(arms)
    for j, arm in enumerate(arms):
        rows = [next(r for r in payload["results"][c] if r["arm"] == arm) for c in configs]
        y = [r["vs_real"]["mean"] for r in rows]
        lo = [r["vs_real"]["mean"] - (r["vs_real"]["lo"] if r["vs_real"]["lo"] is not None else r["vs_real"]["mean"])
              for r in rows]
        hi = [(r["vs_real"]["hi"] if r["vs_real"]["hi"] is not None else r["vs_real"]["mean"]) - r["vs_real"]["mean"]
              for r in rows]
        x = np.arange(len(configs)) + (j - (len(arms) - 1) / 2) * width
        ax.bar(x, y, width, yerr=[lo, hi], capsize=3, label=arm)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(np.arange(len(configs)), configs, rotation=15, fontsize=8)
    ax.set_ylabel("held-out score − real GRPO's (paired, 95% interval)")
    ax.set_title(f"controlled world-model fidelity ({payload['seeds']} seeds; instrument world models)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--pool", type=int, default=64, help="programs in the pool (default: %(default)s)")
    p.add_argument("--budget", type=float, default=1.0, help="scales the 20 GRPO updates per arm")
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--configs", default="all", help=f"comma-separated from {', '.join(CONFIGS)} (default: all)")
    p.add_argument("--train-tasks", default=",".join(TRAIN_TASKS))
    p.add_argument("--heldout-tasks", default=None, help="default: every held-out task")
    p.add_argument("--arms", default=",".join(ARMS),
                   help=f"comma-separated arms of `wmrl compare` (default: {','.join(ARMS)})")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--cache", default=None, help="outcome-table folder (default: the user's shared one)")
    p.add_argument("--mixing", default="", metavar="K=V,...",
                   help="MixingConfig fields for the WMRL arms, e.g. min_pairs=8,ema=0.5 (default: its defaults), "
                        "and every arm's normalize=none|group and eps")
    p.add_argument("--out", default="runs/wm_sensitivity")
    args = p.parse_args(argv)
    args.mixing_spec = args.mixing
    try:
        mixing, args.advantage = split_advantage(args.mixing)
        args.mixing = mixing_config(mixing)
    except ValueError as e:
        p.error(f"--mixing: {e}")
    args.configs = list(CONFIGS) if args.configs == "all" else [c.strip() for c in args.configs.split(",")]
    unknown = [c for c in args.configs if c not in CONFIGS]
    if unknown or args.seeds < 1 or args.pool < 2:
        p.error(f"unknown configs {unknown}" if unknown else "--seeds must be >= 1 and --pool >= 2")
    args.arms = [a.strip() for a in args.arms.split(",")]
    args.train_tasks = args.train_tasks.split(",")
    args.heldout_tasks = (args.heldout_tasks.split(",") if args.heldout_tasks
                          else list(gym.make(ENV_ID, split="heldout").unwrapped.task_ids))
    payload = run(args)
    rows = [{**r, "heldout": fmt(r["heldout"]), "vs_real": fmt(r["vs_real"]) if r["vs_real"] else "",
             "vs_wmrl": fmt(r["vs_wmrl"]) if r["vs_wmrl"] else "", "compute_s": fmt(r["compute_s"], 0),
             "compute_ratio": f"{r['compute_ratio']:.2f}x",
             "wm_spearman": fmt(r["wm_spearman"], 2) if r["wm_spearman"] else "",
             "final_anchor_rate": fmt(r["final_anchor_rate"], 2)}
            for rs in payload["results"].values() for r in rs]
    print(table(rows, ["config", "arm", "heldout", "vs_real", "vs_wmrl", "compute_s", "compute_ratio", "wm_spearman",
                       "final_anchor_rate"]))
    print(f"pool table: {payload['table']}")
    out = Path(args.out)
    print(f"wrote {write_json('wm_sensitivity', payload, out)}")
    plot(payload, out / "wm_sensitivity.png")
    print(f"wall time {payload['wall_s'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
