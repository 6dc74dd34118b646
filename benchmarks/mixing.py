"""Isotonic refit time (numpy PAV vs scikit-learn) and RewardMixer throughput.

    python benchmarks/mixing.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import table, write_json  # noqa: E402

from wmrl_envs.mixing import RewardMixer, pav_fit, sklearn_fit  # noqa: E402


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def refit_times(repeats: int) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    for n in (1_000, 10_000, 100_000):
        s = rng.random(n)
        y = (rng.random(n) < s**2).astype(float)
        t_np = _best_time(lambda s=s, y=y: pav_fit(s, y), repeats)
        t_sk = _best_time(lambda s=s, y=y: sklearn_fit(s, y), repeats)
        rows.append({"pairs": n, "numpy_ms": 1e3 * t_np, "sklearn_ms": 1e3 * t_sk, "numpy/sklearn": t_np / t_sk})
    return rows


def mixer_throughput(batches: int = 300, groups: int = 32, size: int = 8) -> list[dict]:
    rng = np.random.default_rng(1)
    rows = []
    for weighting in ("inverse-variance", "pooled"):
        mixer = RewardMixer(anchor_rate=0.1, weighting=weighting)
        data = [(rng.random((groups, size)), rng.random((groups, size))) for _ in range(batches)]
        t0 = time.perf_counter()
        for t, (s, y) in enumerate(data):
            anchors = mixer.select([f"{t}-{k}" for k in range(groups)])
            mixer.mix(list(s), [yy if a else None for yy, a in zip(y, anchors)])
        dt = time.perf_counter() - t0
        rows.append(
            {"weighting": weighting, "groups/batch": groups, "group_size": size,
             "groups/s": batches * groups / dt, "ms/batch": 1e3 * dt / batches}
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    refit = refit_times(args.repeats)
    print("Isotonic refit (best of", args.repeats, "runs)")
    print(table(refit, ["pairs", "numpy_ms", "sklearn_ms", "numpy/sklearn"]))
    mix = mixer_throughput()
    print("\nRewardMixer throughput (window 4096, refit at every anchor pair, as the wrapper feeds the mixer)")
    print(table(mix, ["weighting", "groups/batch", "group_size", "groups/s", "ms/batch"]))
    print("\nwrote", write_json("mixing", {"refit": refit, "mixer": mix}))


if __name__ == "__main__":
    main()
