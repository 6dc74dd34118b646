"""Executor scaling: programs per minute against workers, local bwrap and Ray side by side.

    python benchmarks/executor_scaling.py [--workers 1,2] [--programs 8] [--rounds 2] [--burn-s 2]

Each program burns a fixed amount of CPU (a numpy loop calibrated once to about ``--burn-s``
seconds) and copies the task's sample submission, so every run is a valid, graded submission.
For each worker count, both executors run the same batch two ways: through ``executor.map``,
and through the reward API a GRPO trainer uses (``EnvReward(gym.make("WMRL/MLEDojo-v0",
executor=ex))`` scoring the batch as completions: it spawns env copies up to the executor's
workers, each stepped from its own thread, all sharing the one executor). Rounds
interleave every configuration in random order, so background load hits all alike; rates pool
the rounds. The ``local`` backend (plain processes) is the control: its speedup is what the
machine allowed. ``in_flight`` (program seconds per second) shows how many programs an executor
kept running at once, whatever the load; ``cpu_cores`` (CPU seconds per second) what they got.
Timings are noisy on a shared machine: read the ratios. Target: 2 workers give at least 1.7x the
programs per minute of 1. Prints a table and writes ``docs/executor_scaling.json``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402

import wmrl_envs  # noqa: E402, F401  registers the envs
from wmrl_agents.trl import EnvReward  # noqa: E402
from wmrl_envs.sandbox import Job, Limits, make_executor  # noqa: E402

TASK = "seattle-weather"
LIMITS = Limits(wall_s=120, cpu_s=120, memory_mb=2048)
SPEEDUP_TARGET = 1.7
DOCS = Path(__file__).resolve().parent.parent / "docs"
PROGRAM = """
import shutil
import numpy as np
x = np.linspace(0.0, 1.0, 100_000)
for _ in range({iters}):
    x = np.sin(x) + 0.5
shutil.copy("data/sample_submission.csv", "submission.csv")
"""


def calibrate(burn_s: float) -> int:
    """Loop iterations that take about ``burn_s`` CPU seconds (single-threaded ufuncs; CPU time, so
    background load does not shorten the program)."""
    x, n, t = np.linspace(0.0, 1.0, 100_000), 0, time.process_time()
    while time.process_time() - t < 0.5:
        x, n = np.sin(x) + 0.5, n + 1
    return max(1, round(n * burn_s / (time.process_time() - t)))


def through_map(ex, envs, job: Job, programs: int) -> list[tuple[bool, float, float]]:
    """(graded submission?, run wall s, run CPU s) of each program."""
    return [(r.ok and "submission.csv" in r.files, r.wall_s, r.cpu_s or 0.0) for r in ex.map([job] * programs)]


def through_reward(ex, env, job: Job, programs: int) -> list[tuple[bool, float, float]]:
    """The batch as TRL completions scored by ``EnvReward(env)``, as ``through_map`` reports."""
    reward = EnvReward(env)  # spawns copies of env up to ex.workers
    completions = [f"```python\n{job.code}```"] * programs
    episodes = reward.episodes(completions, range(programs), [TASK] * programs, [f"g{i}" for i in range(programs)])
    return [(e.status == "ok", e.cost["exec_s"], e.cost["exec_cpu_s"]) for e in episodes]


MODES = {"map": through_map, "reward": through_reward}


def build(backends: list[str], workers: list[int]) -> dict:
    """One executor per (backend, workers), and an env on it."""
    setups = {}
    for backend, w in itertools.product(backends, workers):
        options = {"allow_unsafe": backend == "local"}
        if backend == "ray":
            options["init_kwargs"] = {"num_cpus": max(workers), "include_dashboard": False}
        ex = make_executor(backend, limits=LIMITS, workers=w, **options)
        setups[backend, w] = (ex, gym.make("WMRL/MLEDojo-v0", executor=ex, limits=LIMITS, tasks=[TASK]))
    return setups


def measure(setups: dict, job: Job, programs: int, rounds: int) -> dict:
    """(backend, mode, workers) -> sums of programs, graded ones, seconds, run seconds, CPU seconds."""
    runs = [(b, m, w) for (b, w) in setups for m in MODES]
    totals = {k: dict.fromkeys(("programs", "ok", "wall_s", "run_s", "cpu_s"), 0.0) for k in runs}
    rng = random.Random(0)
    for r in range(rounds):
        rng.shuffle(runs)
        for backend, mode, w in runs:
            ex, env = setups[backend, w]
            t = time.perf_counter()
            done = MODES[mode](ex, env, job, programs)
            elapsed = time.perf_counter() - t
            print(f"round {r + 1}/{rounds}: {backend:5} {mode:3} workers={w}: {programs / elapsed * 60:.1f}/min")
            total = totals[backend, mode, w]
            total["programs"] += len(done)
            total["wall_s"] += elapsed
            for key, values in zip(("ok", "run_s", "cpu_s"), zip(*done)):
                total[key] += sum(values)
    return totals


def rows_from(totals: dict) -> list[dict]:
    """Rates, and two ratios that tell the executor from the machine: ``in_flight`` (program seconds
    per second: how many ran at once) and ``cpu_cores`` (CPU seconds per second: what they got)."""
    rows = []
    for (backend, mode, w), t in sorted(totals.items()):
        row = {"backend": backend, "mode": mode, "workers": w, "programs": int(t["programs"]), "ok": int(t["ok"])}
        row.update(wall_s=t["wall_s"], programs_per_min=t["programs"] / t["wall_s"] * 60)
        row.update(in_flight=t["run_s"] / t["wall_s"], cpu_cores=t["cpu_s"] / t["wall_s"])
        rows.append(row)
    rate = {(r["backend"], r["mode"], r["workers"]): r["programs_per_min"] for r in rows}
    low = min(r["workers"] for r in rows)
    for r in rows:
        r["speedup"] = r["programs_per_min"] / rate[r["backend"], r["mode"], low]
        r["efficiency"] = r["speedup"] / (r["workers"] / low)
        bwrap = rate.get(("bwrap", r["mode"], r["workers"]))
        r["vs_bwrap"] = r["programs_per_min"] / bwrap if bwrap else None
    return rows


def targets_and_notes(rows: list[dict]) -> tuple[dict, list[str]]:
    """The 1 -> 2 workers target per backend and mode, and the cluster arithmetic."""
    targets, notes = {}, []
    for r in rows:
        if r["workers"] == 2 and r["backend"] != "local":
            key = f"{r['backend']}_{r['mode']}_speedup_1_to_2"
            met = r["speedup"] >= SPEEDUP_TARGET
            targets[key] = {"value": r["speedup"], "target": f">= {SPEEDUP_TARGET}", "met": met}
    top = max(r["workers"] for r in rows)
    for r in rows:
        if r["backend"] == "ray" and r["workers"] == top and top > 1:
            per_worker = next(
                x["programs_per_min"] for x in rows if (x["backend"], x["mode"], x["workers"]) == ("ray", r["mode"], 1)
            )
            notes.append(
                f"Ray {r['mode']}: a cluster of C CPUs gives about {per_worker:.1f}/min per worker x C x "
                f"{r['efficiency']:.2f} (efficiency at {top} workers here), e.g. 64 CPUs ~ "
                f"{per_worker * 64 * r['efficiency']:.0f} programs/min for this program; scale per_worker by "
                "(this program's CPU seconds / yours)."
            )
        if r["backend"] == "local" and r["workers"] == top and top > 1:
            notes.append(
                f"Control: plain processes (local, {r['mode']}) got {r['speedup']:.2f}x at {top} workers and "
                f"{r['cpu_cores']:.2f} CPU cores: what this machine allowed during the run."
            )
    return targets, notes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--programs", type=int, default=4, help="programs per measurement")
    ap.add_argument("--rounds", type=int, default=4, help="interleaved repetitions of every measurement")
    ap.add_argument("--burn-s", type=float, default=2.0, help="CPU seconds each program burns")
    ap.add_argument("--backends", default="bwrap,ray,local", help="local (no isolation) is the control")
    args = ap.parse_args()
    workers = sorted({int(w) for w in args.workers.split(",")})
    backends = args.backends.split(",")

    iters = calibrate(args.burn_s)
    setups = build(backends, workers)
    public = setups[backends[0], workers[0]][1].unwrapped.tasks[TASK].public_dir
    job = Job(code=PROGRAM.format(iters=iters), data_dir=public, limits=LIMITS)
    for ex, _ in setups.values():  # warm up: worker processes, imports, caches
        through_map(ex, None, job, ex.workers)
    load_before = os.getloadavg()[0]
    rows = rows_from(measure(setups, job, args.programs, args.rounds))
    load_after = os.getloadavg()[0]
    for ex, env in setups.values():
        env.close()
        ex.close()

    targets, notes = targets_and_notes(rows)
    print(
        f"\nPrograms per minute ({iters} loop iterations, ~{args.burn_s:g} CPU s each; {args.programs} per "
        f"measurement, {args.rounds} rounds); cores: {os.cpu_count()}, load {load_before:.2f} before, "
        f"{load_after:.2f} after"
    )
    columns = ["backend", "mode", "workers", "programs", "ok", "wall_s", "programs_per_min", "speedup", "efficiency"]
    print(table(rows, [*columns, "vs_bwrap", "in_flight", "cpu_cores"]))
    print()
    for k, v in targets.items():
        print(f"{k}: {v['value']:.3g} (target {v['target']}): {'met' if v['met'] else 'NOT met'}")
    for note in notes:
        print(note)
    payload = {
        "rows": rows, "targets": targets, "notes": notes, "cores": os.cpu_count(), "burn_s": args.burn_s,
        "loop_iterations": iters, "programs": args.programs, "rounds": args.rounds,
        "load_average": {"before": load_before, "after": load_after},
    }  # fmt: skip
    print(f"\nwrote {write_json('executor_scaling', payload, out_dir=DOCS)}")


if __name__ == "__main__":
    main()
