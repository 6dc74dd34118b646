"""Estimated run time and memory of a program, from data size, models, ensembles and loops.

Per-model costs are CPU seconds per (row x feature) for one fit plus predict at the library
defaults, measured once with scikit-learn 1.9.1 on 4000 x 20 synthetic rows on one core of a
2-core machine. They are order-of-magnitude estimates: the check exists to catch programs that
are tens of times over budget (compute bombs, huge ensembles), not to split hairs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from wmrl_envs.world_models.analysis import Fit, Program

IMPORT_S = 1.5  # importing pandas + scikit-learn in the sandbox
REF_ROWS = 4000.0

# (pattern on the class name, seconds per cell, size argument, its default, cost grows with rows^2)
_FAMILIES: tuple[tuple[str, float, str | None, float, bool], ...] = (
    (r"HistGradientBoosting", 3.0e-6, "max_iter", 100, False),
    (r"GradientBoosting", 2.4e-5, "n_estimators", 100, False),
    (r"RandomForest", 1.4e-5, "n_estimators", 100, False),
    (r"ExtraTrees", 4.7e-6, "n_estimators", 100, False),
    (r"AdaBoost", 6.4e-6, "n_estimators", 50, False),
    (r"Bagging", 1.0e-5, "n_estimators", 10, False),
    (r"LGBM|XGB|CatBoost", 3.0e-6, "n_estimators", 100, False),
    (r"DecisionTree", 1.0e-6, None, 1, False),
    (r"KNeighbors", 7.4e-7, None, 1, True),
    (r"SVC|SVR|NuSV", 4.5e-6, None, 1, True),
    (r"MLP", 1.8e-5, "max_iter", 200, False),
    (r"Logistic|Ridge|Lasso|ElasticNet|Linear|SGD|Perceptron|NB$|Dummy", 1.0e-7, None, 1, False),
)
_DEFAULT_PER_CELL = 1.0e-6


def fit_seconds(qualname: str, kwargs: Mapping[str, Any], rows: float, cols: float) -> float:
    """Estimated seconds of one fit + predict of the named model class."""
    name = qualname.rsplit(".", 1)[-1]
    for pattern, per_cell, size_arg, default, quadratic in _FAMILIES:
        if re.search(pattern, name):
            size = kwargs.get(size_arg, kwargs.get("iterations", default)) if size_arg else default
            scale = size / default if isinstance(size, (int, float)) and size > 0 else 1.0
            growth = rows / REF_ROWS if quadratic else 1.0
            return per_cell * rows * cols * scale * growth
    if name.endswith(("Classifier", "Regressor", "Regression")):
        return _DEFAULT_PER_CELL * rows * cols
    return 0.0


def _data_shape(fit: Fit, schema: Mapping[str, Mapping[str, Any]]) -> tuple[float, float]:
    sizes = {f: (float(s.get("n_rows", 0)), float(len(s.get("columns", {})))) for f, s in schema.items()}
    rows, cols = max(sizes.values(), default=(1000.0, 10.0))
    frame = fit.frame
    if frame is not None and frame.file in sizes:
        rows, cols = sizes[frame.file]
    if frame is not None and frame.columns is not None:
        cols = float(len(frame.columns))
    if frame is not None and frame.encoded:
        cols *= 3  # one-hot expansion
    return rows, max(cols, 1.0)


def estimate(prog: Program, schema: Mapping[str, Mapping[str, Any]]) -> tuple[float, list[str]]:
    """Estimated wall seconds of the run and the largest items behind it."""
    if prog.infinite_loop is not None:
        return math.inf, [f"line {prog.infinite_loop}: `while True` loop with no break"]
    items: list[tuple[float, str]] = [(IMPORT_S, "imports")]
    for fit in prog.fits:
        rows, cols = _data_shape(fit, schema)
        members = fit.instance.members or [(fit.instance.qualname, fit.instance.kwargs)]
        per_fit = sum(fit_seconds(m, kw, rows, cols) for m, kw in members)
        if per_fit:
            label = members[-1][0].rsplit(".", 1)[-1]
            items.append((per_fit * fit.repeats, f"line {fit.lineno}: {label} x{fit.repeats:g} on {rows:.0f}x{cols:.0f}"))
    if prog.loop_cost_s > 0.01:
        items.append((prog.loop_cost_s, "Python loops"))
    if prog.sleep_s:
        items.append((prog.sleep_s, "sleep"))
    total = sum(s for s, _ in items)
    top = [f"{why} ~{s:.3g}s" for s, why in sorted(items, reverse=True)[:3]]
    return total, top

