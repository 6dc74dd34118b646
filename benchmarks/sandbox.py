"""Sandbox cost: per-run wall and CPU against a bare subprocess, cold and warm, and throughput at
1, 2, 4 workers.

    python benchmarks/sandbox.py [--runs 30] [--jobs 8] [--backends bwrap warm local]

Overhead: the median wall time and CPU of an empty program and of the imports an agent program
starts with (numpy, pandas, scikit-learn), run bare (``python -c``) and as a source job through
each executor, interleaved so that background load hits all sides alike. A warm run's CPU is its
own (``cpu_s``); its zygote's CPU (start-up, clones) is reported beside it, whole and per run.
Throughput: a batch of small RandomForest fits through ``executor.map``.
Targets: bwrap adds at most 15 ms per run, and 2 workers give at least 1.7x the throughput of 1
(issue 3); warm runs the import-only program in at most 0.1 CPU-s, and 2 warm workers give at
least 1.8x (issue 24). Prints a table and writes ``benchmarks/out/sandbox.json``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402

from wmrl_envs.sandbox import Job, Limits, make_executor  # noqa: E402
from wmrl_envs.sandbox.warm import zygote_cpu  # noqa: E402

PROGRAMS = {
    "python -c pass": "pass",
    "imports": "import numpy, pandas, sklearn.ensemble, sklearn.linear_model, sklearn.model_selection",
}
FIT = """
import numpy as np
from sklearn.ensemble import RandomForestClassifier
rng = np.random.default_rng({seed})
X = rng.normal(size=(2000, 20)); y = X[:, 0] + X[:, 1] > 0
RandomForestClassifier(n_estimators=60, random_state=0).fit(X, y)
"""
LIMITS = Limits(wall_s=120, cpu_s=120, memory_mb=2048)
OVERHEAD_TARGET_MS = 15.0
SPEEDUP_TARGET = {"bwrap": 1.7, "warm": 1.8}
WARM_IMPORT_CPU_TARGET_S = 0.1


def _bare(code: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def _sandboxed(ex, code: str) -> tuple[float, float]:
    """Wall seconds of one source job, and its own CPU seconds."""
    t = time.perf_counter()
    r = ex.run(Job(code=code))
    elapsed = time.perf_counter() - t
    if r.exit_code != 0:
        raise RuntimeError(f"{ex.name} failed: {r.error or r.stderr}")
    return elapsed, float(r.cpu_s or 0.0)


def overhead(executors: dict, runs: int, rng: random.Random) -> list[dict]:
    """Median and minimum wall time, and median CPU, per way of running; each round runs every way
    once, in random order. Under background load the minimum is the steadier estimate of fixed cost."""
    rows = []
    for label, code in PROGRAMS.items():
        n = runs if code == "pass" else max(3, runs // 6)
        ways = {"bare": lambda c=code: (_bare(c), float("nan"))}
        ways.update({name: lambda ex=ex, c=code: _sandboxed(ex, c) for name, ex in executors.items()})
        times: dict[str, list[float]] = {k: [] for k in ways}
        cpus: dict[str, list[float]] = {k: [] for k in ways}
        for _ in tqdm(range(n), desc=f"overhead: {label}", leave=False):
            order = list(ways)
            rng.shuffle(order)
            for name in order:
                wall, cpu = ways[name]()
                times[name].append(wall)
                cpus[name].append(cpu)
        bare_med, bare_min = statistics.median(times["bare"]), min(times["bare"])
        row = {"program": label, "runs": n, "bare_ms": bare_med * 1e3, "bare_min_ms": bare_min * 1e3}
        for name in executors:
            med, low = statistics.median(times[name]), min(times[name])
            row[f"{name}_ms"] = med * 1e3
            row[f"{name}_overhead_ms"] = (med - bare_med) * 1e3
            row[f"{name}_min_overhead_ms"] = (low - bare_min) * 1e3
            row[f"{name}_cpu_s"] = statistics.median(cpus[name])
        rows.append(row)
    return rows


def throughput(backend: str, jobs: int, workers: tuple[int, ...]) -> list[dict]:
    rows = []
    batch = [Job(code=FIT.format(seed=i)) for i in range(jobs)]
    for w in tqdm(workers, desc=f"throughput: {backend}", leave=False):
        ex = make_executor(backend, limits=LIMITS, workers=w, allow_unsafe=backend == "local")
        t = time.perf_counter()
        results = list(ex.map(batch))
        wall = time.perf_counter() - t
        if not all(r.ok for r in results):
            raise RuntimeError(f"a fit failed under {backend}: {[r.stderr for r in results if not r.ok][:1]}")
        rows.append(
            {
                "backend": backend,
                "workers": w,
                "jobs": jobs,
                "wall_s": wall,
                "runs_per_s": jobs / wall,
                "mean_run_s": statistics.mean(r.wall_s for r in results),
            }
        )
    base = rows[0]["runs_per_s"]
    for r in rows:
        r["speedup"] = r["runs_per_s"] / base
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30, help="runs per overhead measurement")
    ap.add_argument("--jobs", type=int, default=8, help="fits per throughput batch")
    ap.add_argument("--backends", nargs="+", default=["bwrap", "warm", "local"])
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2, 4])
    args = ap.parse_args()

    executors = {
        b: make_executor(b, limits=LIMITS, workers=1, allow_unsafe=b == "local") for b in args.backends
    }
    for ex in executors.values():  # first-use costs (zygote, cgroup discovery, bwrap probe)
        _sandboxed(ex, PROGRAMS["imports"])
    zygote_before = zygote_cpu()
    load_before = os.getloadavg()[0]
    over = overhead(executors, args.runs, random.Random(0))
    thr = [row for b in args.backends for row in throughput(b, args.jobs, tuple(args.workers))]
    zygotes = zygote_cpu()
    load_after = os.getloadavg()[0]

    suffixes = ("_ms", "_overhead_ms", "_min_overhead_ms", "_cpu_s")
    cols = ["program", "runs", "bare_ms"] + [f"{b}{x}" for b in args.backends for x in suffixes]
    print("Per-run wall time, median; overhead = sandboxed - bare (median, and min - min); the run's own CPU")
    print(f"cores: {os.cpu_count()}, 1-min load average: {load_before:.2f} before, {load_after:.2f} after")
    print(table(over, cols))
    print()
    print("Throughput of a batch of RandomForest fits through executor.map")
    print(table(thr, ["backend", "workers", "jobs", "wall_s", "runs_per_s", "speedup", "mean_run_s"]))
    served = zygotes["runs"] - zygote_before["runs"]
    if zygotes["zygotes"]:
        print(
            f"\nwarm zygotes: {zygotes['zygotes']}, start-up {zygotes['startup_cpu_s']:.2f} CPU-s, "
            f"{zygotes['zygote_cpu_s']:.2f} CPU-s in all over {zygotes['runs']} runs "
            f"({(zygotes['zygote_cpu_s'] - zygote_before['zygote_cpu_s']) / max(1, served) * 1e3:.1f} ms per "
            "run measured here, clones)"
        )

    targets = {}

    def target(name: str, value: float, text: str, met: bool) -> None:
        targets[name] = {"value": value, "target": text, "met": met}

    if "bwrap" in executors:
        ms = next(r["bwrap_min_overhead_ms"] for r in over if r["program"] == "python -c pass")
        target("bwrap_min_overhead_ms", ms, f"<= {OVERHEAD_TARGET_MS}", ms <= OVERHEAD_TARGET_MS)
    if "warm" in executors:
        imports = next(r for r in over if r["program"] == "imports")
        cpu = imports["warm_cpu_s"]
        target("warm_imports_cpu_s", cpu, f"<= {WARM_IMPORT_CPU_TARGET_S}", cpu <= WARM_IMPORT_CPU_TARGET_S)
        if "bwrap" in executors:
            target("warm_over_cold_imports_cpu", cpu / imports["bwrap_cpu_s"], "(ratio)", True)
        # Warm, an empty program does no work of its own (no interpreter start): its wall time is
        # all overhead. Minimum: the steadier estimate of a fixed cost under background load.
        empty = next(r for r in over if r["program"] == "python -c pass")
        ms = empty["warm_min_overhead_ms"] + empty["bare_min_ms"]
        target("warm_empty_program_min_wall_ms", ms, f"<= {OVERHEAD_TARGET_MS}", ms <= OVERHEAD_TARGET_MS)
    for backend, goal in SPEEDUP_TARGET.items():
        two = [r["speedup"] for r in thr if r["backend"] == backend and r["workers"] == 2]
        if two:
            target(f"{backend}_speedup_2_workers", two[0], f">= {goal}", two[0] >= goal)
    print()
    for k, v in targets.items():
        print(f"{k}: {v['value']:.3g} (target {v['target']}): {'met' if v['met'] else 'NOT met'}")
    payload = {"overhead": over, "throughput": thr, "targets": targets, "cores": os.cpu_count(),
               "zygotes": zygotes}
    payload["load_average"] = {"before": load_before, "after": os.getloadavg()[0]}
    path = write_json("sandbox", payload)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
