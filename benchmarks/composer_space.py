"""The ComposerPolicy program space under uniform sampling, run for real in the sandbox.

    python benchmarks/composer_space.py [--n 40] [--tasks credit-scoring hpc-jobs concrete-strength]
                                        [--workers 2] [--seed 0] [--out runs/composer_space.json]

Draws ``--n`` programs per task from a ComposerPolicy with θ = 0 (every slot uniform), runs each
through ``WMRL/MLEDojo-v0`` (train split, bwrap sandbox, percentile reward) and prints per task: the
share of programs that ran and were graded (ok), that failed (any other status), that scored in the
bottom decile (reward <= 0.1 among the graded), that failed or scored in the bottom decile, the mean
sandbox CPU-seconds per program, and the number of distinct programs. Writes the per-program
outcomes and the table as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Queue

import gymnasium as gym
import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table  # noqa: E402

import wmrl_envs  # noqa: E402, F401
from wmrl_agents.composer import SLOTS, ComposerPolicy, n_programs  # noqa: E402

BOTTOM = 0.1
COLUMNS = (
    "task",
    "programs",
    "distinct",
    "ok",
    "failed",
    "bottom_decile",
    "fail_or_bottom",
    "cpu_s_mean",
    "cpu_s_median",
)


def uniform_policy() -> ComposerPolicy:
    policy = ComposerPolicy(seed=0)
    policy.theta = {s: np.zeros_like(th) for s, th in policy.theta.items()}
    return policy


def draw(
    policy: ComposerPolicy, env: gym.Env, task: str, n: int, rng: np.random.Generator
) -> list[dict]:
    """``n`` uniform programs for ``task``: their code and slot choices."""
    obs, info = env.reset(options={"task_id": task})
    jobs = []
    for _ in range(n):
        code, (actions, _) = policy.sample(obs, info, rng)
        jobs.append(
            {"task": task, "code": code, "choice": {s: SLOTS[s][a] for s, a in zip(SLOTS, actions)}}
        )
    return jobs


def run_all(jobs: list[dict], workers: int) -> list[dict]:
    """Run every job through its own env copy (one per worker thread); outcomes in job order."""
    free: Queue = Queue()
    for _ in range(workers):
        free.put(gym.make("WMRL/MLEDojo-v0", split="train", executor="bwrap"))
    bar = tqdm(total=len(jobs), desc="programs", leave=False)

    def one(job: dict) -> dict:
        env = free.get()
        try:
            env.reset(options={"task_id": job["task"]})
            _, reward, _, _, info = env.step(job["code"])
        finally:
            free.put(env)
            bar.update(1)
        return {
            **job,
            "status": info["status"],
            "reward": float(reward),
            "score": info["score"],
            "cpu_s": float(info["cost"]["exec_cpu_s"]),
            "wall_s": float(info["cost"]["exec_s"]),
        }

    with ThreadPoolExecutor(workers) as pool:
        out = list(pool.map(one, jobs))
    bar.close()
    return out


def summarize(task: str, rows: list[dict]) -> dict:
    ok = np.array([r["status"] == "ok" for r in rows])
    bottom = np.array([r["status"] == "ok" and r["reward"] <= BOTTOM for r in rows])
    cpu = np.array([r["cpu_s"] for r in rows])
    return {
        "task": task, "programs": len(rows),
        "distinct": len({hashlib.sha256(r["code"].encode()).hexdigest() for r in rows}),
        "ok": float(ok.mean()), "failed": float(1 - ok.mean()), "bottom_decile": float(bottom.mean()),
        "fail_or_bottom": float((~ok | bottom).mean()),
        "cpu_s_mean": float(cpu.mean()), "cpu_s_median": float(np.median(cpu)),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40, help="programs per task")
    parser.add_argument(
        "--tasks", nargs="+", default=["credit-scoring", "hpc-jobs", "concrete-strength"]
    )
    parser.add_argument("--workers", type=int, default=2, help="env copies run in threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/composer_space.json")
    args = parser.parse_args(argv)

    policy, rng = uniform_policy(), np.random.default_rng(args.seed)
    env = gym.make("WMRL/MLEDojo-v0", split="train")
    jobs = [job for task in args.tasks for job in draw(policy, env, task, args.n, rng)]
    rows = run_all(jobs, args.workers)
    summary = [summarize(t, [r for r in rows if r["task"] == t]) for t in args.tasks]
    summary.append(summarize("all", rows))
    print(f"n_programs per task (product of slot sizes): {n_programs():,}")
    print(table(summary, COLUMNS))
    payload = {"n_programs": n_programs(), "slots": {s: list(v) for s, v in SLOTS.items()},
               "args": vars(args), "summary": summary,
               "programs": [{k: v for k, v in r.items() if k != "code"} for r in rows]}  # fmt: skip
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {out}")
    return payload


if __name__ == "__main__":
    main()
