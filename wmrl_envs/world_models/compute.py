"""Estimated run time and memory of a program, from data size, models, ensembles and loops.

A program's cost is a fixed start-up cost plus, per fit, ``per_cell[family] * work`` where
``work`` is rows x features x (size argument / its default) x repeats (cross-validation folds,
search candidates, loops), and rows^2 instead of rows for kernel and neighbour models. The
features of a one-hot encoded frame are the numeric columns plus, per text column, its number of
distinct values in the task's schema (``n_unique``).

The relative per-cell costs of the families were measured once with scikit-learn 1.9.1 on
4000 x 20 synthetic rows on one core of a 2-core machine; one factor on them (:data:`SCALE`)
and the start-up seconds per imported package are fitted to the CPU seconds that the dev half of
``benchmarks/corpus`` recorded (see :data:`IMPORT_S`). The estimates are CPU seconds, good to a
factor of ~1.3 on those runs; the check exists to catch programs that are tens of times over
budget (compute bombs, huge ensembles), not to split hairs.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wmrl_envs.world_models.analysis import Fit, Program, is_numeric

# Fitted by least squares in log space on the dev half of benchmarks/corpus (its 105 successful
# runs: a failed run stops early) against the recorded ``cpu_s``, with
#     cost = IMPORT_BASE_S + sum(IMPORT_S[package imported]) + SCALE * sum(per_cell * work) + loops;
# reproduce with ``.venv/bin/python benchmarks/wm_cost_fit.py``. Log-RMSE on those runs: 0.62 with
# the unfitted constants (1.5 s start-up for every program, SCALE 1), 0.58 for the best single
# constant, 0.24 after the fit (0.27 with SCALE held at 1: the dev runs are 0.3-4.4 s, so the
# start-up terms are well determined and SCALE only roughly).
IMPORT_BASE_S = 0.377  # start-up: the interpreter, numpy and pandas, reading the data
IMPORT_S = {"sklearn": 0.985, "statsmodels": 0.843}  # more start-up per imported package
# Other third-party packages (lightgbm, xgboost, torch, ...): the dev half imports none of them, so
# their start-up is not fitted; hand-set to scikit-learn's.
OTHER_IMPORT_S = 0.985
FREE_IMPORTS = frozenset({"numpy", "pandas"}) | frozenset(sys.stdlib_module_names)  # in the base
SCALE = 0.464  # one factor on every family's measured per-cell cost
REF_ROWS = 4000.0
# Expansion of an encoded frame's columns where the schema has no distinct counts (hand-set).
ONE_HOT_FALLBACK = 3.0

# (family, pattern on the class name, seconds per cell, size argument, its default, cost grows with rows^2)
_FAMILIES: tuple[tuple[str, str, float, str | None, float, bool], ...] = (
    ("hist_boosting", r"HistGradientBoosting", 3.0e-6, "max_iter", 100, False),
    ("boosting", r"GradientBoosting", 2.4e-5, "n_estimators", 100, False),
    ("forest", r"RandomForest", 1.4e-5, "n_estimators", 100, False),
    ("extra_trees", r"ExtraTrees", 4.7e-6, "n_estimators", 100, False),
    ("adaboost", r"AdaBoost", 6.4e-6, "n_estimators", 50, False),
    ("bagging", r"Bagging", 1.0e-5, "n_estimators", 10, False),
    ("external_boosting", r"LGBM|XGB|CatBoost", 3.0e-6, "n_estimators", 100, False),
    ("tree", r"DecisionTree", 1.0e-6, None, 1, False),
    ("knn", r"KNeighbors", 7.4e-7, None, 1, True),
    ("svm", r"SVC|SVR|NuSV", 4.5e-6, None, 1, True),
    ("mlp", r"MLP", 1.8e-5, "max_iter", 200, False),
    ("linear", r"Logistic|Ridge|Lasso|ElasticNet|Linear|SGD|Perceptron|NB$|Dummy", 1.0e-7, None, 1, False),
)
PER_CELL: dict[str, float] = {f[0]: f[2] for f in _FAMILIES} | {"other": 1.0e-6}
ENCODERS = ("OneHotEncoder",)  # pipeline members that widen the features one-hot


@dataclass(frozen=True)
class Work:
    """One fit's work: ``PER_CELL[family] * SCALE * units`` seconds."""

    family: str
    units: float
    label: str


def fit_work(qualname: str, kwargs: Mapping[str, Any], rows: float, cols: float) -> tuple[str, float] | None:
    """``(family, units)`` of one fit + predict of the named model class, None if it is no model."""
    name = qualname.rsplit(".", 1)[-1]
    for fam, pattern, _, size_arg, default, quadratic in _FAMILIES:
        if re.search(pattern, name):
            size = kwargs.get(size_arg, kwargs.get("iterations", default)) if size_arg else default
            scale = size / default if isinstance(size, (int, float)) and size > 0 else 1.0
            growth = rows / REF_ROWS if quadratic else 1.0
            return fam, rows * cols * scale * growth
    if name.endswith(("Classifier", "Regressor", "Regression")):
        return "other", rows * cols
    return None


def fit_seconds(qualname: str, kwargs: Mapping[str, Any], rows: float, cols: float) -> float:
    """Estimated seconds of one fit + predict of the named model class."""
    work = fit_work(qualname, kwargs, rows, cols)
    return PER_CELL[work[0]] * SCALE * work[1] if work else 0.0


def encoded_width(columns: set[str] | None, file: Mapping[str, Any]) -> float | None:
    """Columns after one-hot encoding: numeric columns count once, a text column once per distinct
    value (at most one per row); None where the schema has no distinct counts."""
    counts = file.get("n_unique")
    dtypes = file.get("columns", {})
    if not counts:
        return None
    cols = columns if columns is not None else set(dtypes)
    rows = float(file.get("n_rows", 0)) or math.inf
    width = 0.0
    for c in cols:
        if c in dtypes and not is_numeric(dtypes[c]):
            width += min(float(counts.get(c, ONE_HOT_FALLBACK)), rows)
        else:
            width += 1.0
    return width


def _data_shape(fit: Fit, schema: Mapping[str, Mapping[str, Any]]) -> tuple[float, float]:
    sizes = {f: (float(s.get("n_rows", 0)), float(len(s.get("columns", {})))) for f, s in schema.items()}
    rows, cols = max(sizes.values(), default=(1000.0, 10.0))
    frame = fit.frame
    file = schema.get(frame.file) if frame is not None and frame.file else None
    if frame is not None and frame.file in sizes:
        rows, cols = sizes[frame.file]
    if frame is not None and frame.columns is not None and not frame.encoded:
        cols = float(len(frame.columns))
    members = [q.rsplit(".", 1)[-1] for q, _ in fit.instance.members]
    one_hot = frame is not None and frame.encoded or any(m in ENCODERS for m in members)
    if one_hot:
        base = frame.base if frame is not None and frame.base is not None else (
            frame.columns if frame is not None and not frame.encoded else None)
        width = encoded_width(set(base) if base is not None else None, file) if file else None
        cols = width if width is not None else cols * ONE_HOT_FALLBACK
    return rows, max(cols, 1.0)


def work_items(prog: Program, schema: Mapping[str, Mapping[str, Any]]) -> list[Work]:
    """The model fits of a program as :class:`Work` (repeats included)."""
    out = []
    for fit in prog.fits:
        rows, cols = _data_shape(fit, schema)
        members = fit.instance.members or [(fit.instance.qualname, fit.instance.kwargs)]
        label = f"line {fit.lineno}: {members[-1][0].rsplit('.', 1)[-1]} x{fit.repeats:g} on {rows:.0f}x{cols:.0f}"
        for m, kw in members:
            w = fit_work(m, kw, rows, cols)
            if w is not None and w[1] > 0:
                out.append(Work(w[0], w[1] * fit.repeats, label))
    return out


def startup_seconds(prog: Program) -> float:
    """Seconds before the first fit: the base plus each imported third-party package's share."""
    packages = {r.value.split(".")[0] for r in prog.imports} - FREE_IMPORTS
    if packages & {"sklearn", "statsmodels"}:
        packages.discard("scipy")  # both import scipy themselves
    return IMPORT_BASE_S + sum(IMPORT_S.get(p, OTHER_IMPORT_S) for p in packages)


def estimate(prog: Program, schema: Mapping[str, Mapping[str, Any]]) -> tuple[float, list[str]]:
    """Estimated seconds of the run and the largest items behind it."""
    if prog.infinite_loop is not None:
        return math.inf, [f"line {prog.infinite_loop}: `while True` loop with no break"]
    per_label: dict[str, float] = {}
    for w in work_items(prog, schema):
        per_label[w.label] = per_label.get(w.label, 0.0) + PER_CELL[w.family] * SCALE * w.units
    items: list[tuple[float, str]] = [(startup_seconds(prog), "imports"), *((s, why) for why, s in per_label.items())]
    if prog.loop_cost_s > 0.01:
        items.append((prog.loop_cost_s, "Python loops"))
    if prog.sleep_s:
        items.append((prog.sleep_s, "sleep"))
    total = sum(s for s, _ in items)
    top = [f"{why} ~{s:.3g}s" for s, why in sorted(items, reverse=True)[:3]]
    return total, top
