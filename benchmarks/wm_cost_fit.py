"""Fit the static world model's cost constants to measured run times, on the DEV half only.

    .venv/bin/python benchmarks/wm_cost_fit.py [--target cpu_s|wall_s]

For every successful dev-half run (a failed run stops early, so its time is not the program's
cost) the analysis of ``wmrl_envs.world_models.compute`` gives the work of each model fit
(rows x features x size x repeats); the fit finds the start-up cost (a base, plus one constant
per imported package the dev runs use: scikit-learn, statsmodels) and one ``SCALE`` on the
measured per-cell costs of the families that minimise

    sum over runs of (log(base + sum_pkg IMPORT_S[pkg] + SCALE * sum_fits per_cell * work + loops) - log(t))^2

(least squares in log space, so a 0.5 s run and a 5 s run weigh alike). A single scale, not one
constant per family: the dev runs are 0.3-5 s, so a family's own constant would be fitted on a
handful of runs dominated by start-up time. Reports the dev log-error (RMSE of the log ratio)
before and after and the constants to paste into ``compute.py``. Reads no test-half program.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from wm_dev_eval import ROOT as REPO  # noqa: E402
from wm_dev_eval import contexts, load_dev, load_program  # noqa: E402

from wmrl_envs.world_models import compute  # noqa: E402
from wmrl_envs.world_models.analysis import analyze  # noqa: E402

FITTED = ("sklearn", "statsmodels")  # packages with their own start-up constant
UNFITTED = {"base": 1.5, "sklearn": 0.0, "statsmodels": 0.0, "scale": 1.0}  # compute.py before the fit


def features(target: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per successful dev run: which fitted packages it imports, model seconds at SCALE=1, other
    seconds (loops; sleeps for wall time) and the measured time."""
    rows = [r for r in load_dev() if r["status"] == "ok" and not r.get("timed_out") and r.get(target)]
    ctxs = contexts({r["task_id"] for r in rows})
    imports, model, other, t = [], [], [], []
    for r in rows:
        schema = ctxs[r["task_id"]].get("files") or {}
        prog = analyze(load_program(REPO / r["path"])[1], schema)
        packages = {i.value.split(".")[0] for i in prog.imports}
        imports.append([p in packages for p in FITTED])
        model.append(sum(compute.PER_CELL[w.family] * w.units for w in compute.work_items(prog, schema)))
        other.append((prog.loop_cost_s if prog.loop_cost_s > 0.01 else 0.0) + (prog.sleep_s if target == "wall_s" else 0.0))
        t.append(float(r[target]))
    return np.array(imports, dtype=float), np.array(model), np.array(other), np.array(t)


def predict(c: dict[str, float], imports: np.ndarray, model: np.ndarray, other: np.ndarray) -> np.ndarray:
    return c["base"] + imports @ np.array([c[p] for p in FITTED]) + c["scale"] * model + other


def log_rmse(c: dict[str, float], imports: np.ndarray, model: np.ndarray, other: np.ndarray, t: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.log(predict(c, imports, model, other)) - np.log(t)) ** 2)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", default="cpu_s", choices=("cpu_s", "wall_s"))
    args = ap.parse_args()
    imports, model, other, t = features(args.target)
    names = ["base", *FITTED, "scale"]

    def unpack(theta: np.ndarray) -> dict[str, float]:
        return dict(zip(names, (math.exp(v) for v in theta)))

    def residuals(theta: np.ndarray) -> np.ndarray:
        return np.log(predict(unpack(theta), imports, model, other)) - np.log(t)

    fit = least_squares(residuals, np.log([0.5, 1.0, 1.0, 1.0]))
    after = unpack(fit.x)
    current = {"base": compute.IMPORT_BASE_S, **{p: compute.IMPORT_S[p] for p in FITTED}, "scale": compute.SCALE}
    report = {
        "runs": len(t),
        "target": args.target,
        "measured_median_s": float(np.median(t)),
        "unfitted": {**UNFITTED, "log_rmse": log_rmse(UNFITTED, imports, model, other, t)},
        "constant_only_log_rmse": float(np.std(np.log(t))),
        "in_compute_py": {**current, "log_rmse": log_rmse(current, imports, model, other, t)},
        "fitted": {**{k: round(v, 3) for k, v in after.items()}, "log_rmse": log_rmse(after, imports, model, other, t)},
        "model_share_median": float(np.median(after["scale"] * model / predict(after, imports, model, other))),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
