"""Does the proxy see a cost that grows faster than the rows when the program's own fixed and linear
costs hide it on the proxy's split?

    python benchmarks/proxy_superlinear.py [--tasks hotel-rates chicago-ridership ...] [--models svm]
        [--points proxy:rows=500,board=none,time_share=0.25@warm ...] [--time-limit 20] [--out DIR]

Composer programs with a kernel SVM (or the models named), untuned, 5-fold CV and grid-tuned, on the
tasks ``wmrl compare`` trains on, each run for real under the compare's CPU cap and predicted by the
proxy points (the real runs are shared). An SVM's fit grows with about the square of the rows or
faster, but on 500 rows it is a few hundredths of a CPU-second beside the program's reading and
encoding, so the proxy's reruns on fewer rows see linear growth. A program the proxy predicts to
pass (score > 0, no predicted limit failure) whose real run meets the cap is counted: ``missed``.
Prints a table per point, writes ``proxy_superlinear.json`` (``points``: each point's programs and
counts, and the proxy's CPU over the real runs').
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import table, write_json  # noqa: E402
from wm_corpus_fidelity import contexts  # noqa: E402
from wm_frontier import predictions, real_runs  # noqa: E402

TASKS = ("ames-housing", "chicago-ridership", "concrete-strength", "employee-attrition", "food-delivery", "hotel-rates",
         "hpc-jobs", "phone-churn", "remote-developers", "seattle-weather", "taxi-tips", "telco-churn")
BASE_CHOICE = {"read": "plain", "missing": "median", "encode": "dummies_aligned", "features": "none", "target": "none",
               "output": "correct", "style": "flat"}


def programs(tasks: list[str], models: list[str]) -> list[dict]:
    """One composer program per task, model and tuning (none, 5-fold CV, grid)."""
    import gymnasium as gym

    from wmrl_agents.composer import render

    env = gym.make("WMRL/MLEDojo-v0", split="all")
    rows = []
    try:
        for task in tasks:
            context = env.reset(seed=0, options={"task_id": task})[1]["wm_context"]
            for model, tuning in itertools.product(models, ("none", "kfold5", "grid")):
                code = render({**BASE_CHOICE, "model": model, "tuning": tuning}, context)
                rows.append({"task_id": task, "suite": "offline", "code": code, "category": f"{model}/{tuning}"})
    finally:
        env.close()
    return rows


def judged(rows: list[dict], real: list[dict], pred: dict, time_limit: float) -> dict:
    """Each program's proxy prediction beside its real run, and the counts: ``capped`` (the real run
    met the cap), ``missed`` (capped, yet the proxy paid it), ``cpu_ratio`` (proxy CPU over real CPU)."""
    out = []
    for r, x, score, cost in zip(rows, real, pred["scores"], pred["costs"]):
        capped = x["status"] == "run_failed" and x["cpu_s"] >= 0.95 * time_limit
        out.append({"task": r["task_id"], "program": r["category"], "proxy": round(score, 3), "proxy_cpu_s": round(cost, 2),
                    "real": x["status"], "real_reward": round(x["reward"], 3), "real_cpu_s": round(x["cpu_s"], 1),
                    "capped": capped, "missed": bool(capped and score > 0)})
    return {"programs": out, "capped": sum(r["capped"] for r in out), "missed": sum(r["missed"] for r in out),
            "cpu_ratio": sum(pred["costs"]) / sum(x["cpu_s"] for x in real)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tasks", nargs="+", default=list(TASKS))
    ap.add_argument("--models", nargs="+", default=["svm"], help="composer model variants")
    ap.add_argument("--points", nargs="+", default=["proxy:rows=500,board=none,time_share=0.25@warm"],
                    help="world-model points, all on one backend (after the @)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="CPU-s cap of every run (wmrl compare's)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from wmrl_agents.compare_text import program_limits

    rows = programs(args.tasks, args.models)
    ctx = {k: {**c, **program_limits(args.time_limit)} for k, c in contexts(rows).items()}
    backends = {p.partition("@")[2] for p in args.points}
    if len(backends) != 1:
        raise SystemExit(f"--points must share one backend (after the @), got {sorted(backends)}")
    real = real_runs(rows, ctx, backends.pop(), args.workers)
    results = {point: judged(rows, real, predictions(point, rows, ctx, args.workers), args.time_limit)
               for point in args.points}
    for point, res in results.items():
        print(f"\n{point}")
        print(table(res["programs"], list(res["programs"][0])))
        print(f"{res['capped']} of {len(rows)} programs met the {args.time_limit:g} CPU-s cap for real; the proxy paid "
              f"{res['missed']} of them; proxy CPU / real CPU {res['cpu_ratio']:.3f}")
    path = write_json("proxy_superlinear", {"time_limit": args.time_limit, "points": results},
                      Path(args.out) if args.out else None)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
