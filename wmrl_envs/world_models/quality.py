"""A prior on how well a program that runs will score, read off the task's leaderboard.

Every embedded task ships a board of reference recipes (``gbm-tuned``, ``linear-c1``,
``knn-25``, ``forest-300``, ...) and ``baselines.json`` gives the percentile a default
RandomForest and a default linear model reach. The prior of a program is the percentile its
model family reaches on *this* task's board (the env's default reward is that percentile): the
median of the family's board entries, or the measured default where the program keeps the
defaults; tasks without a board use the family's mean over all boards. A program that builds
several models counts the one whose family does best on this board; one that trains none gets
the board's constant recipes (``sample-submission``, ``random-guess``). Small forests and shallow
trees are told apart at sizes read from the boards' recipe names (``forest-10``,
``tree-depth-2``). Non-scikit-learn models count by what they are: statsmodels and numpy least
squares or gradient descent are linear models. Online debiasing maps the prior to the real reward
scale. Hand-set, since the boards cannot fit them: :data:`UNSCALED_PENALTY`, :data:`NO_MODEL`
(only where no board exists) and the family of each class (``_CLASSES``, ``_RECIPES``).
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from wmrl_envs.world_models.analysis import Program

# Board recipe name prefix -> family.
_RECIPES = (("ensemble", "ensemble"), ("gbm", "boosting"), ("linear", "linear"), ("forest-10", "small_forest"),
            ("forest", "forest"), ("extra-trees", "forest"), ("knn", "knn"), ("tree-depth-2", "stump"),
            ("one-split-stump", "stump"), ("tree", "tree"), ("naive-bayes", "naive_bayes"),
            ("sample-submission", "constant"), ("random-guess", "constant"))
# Class-name pattern -> family; the first match wins.
_CLASSES = ((r"Stacking|Voting", "ensemble"),
            (r"HistGradientBoosting|LGBM|XGB|CatBoost|GradientBoosting|AdaBoost|Booster", "boosting"),
            (r"RandomForest|ExtraTrees|Bagging", "forest"),
            (r"Logistic|Ridge|Lasso|ElasticNet|LinearRegression|SGD|LinearSVC|LinearSVR|LinearDiscriminant|"
             r"QuadraticDiscriminant|Lars|Huber|Poisson|Gamma|Tweedie|^OLS$|^WLS$|^GLS$|^GLM$|^RLM$|^QuantReg$|"
             r"^Logit$|^MNLogit$|Probit",
             "linear"),
            (r"SVC|SVR|MLP|GaussianProcess|KernelRidge", "linear"),
            (r"KNeighbors|RadiusNeighbors", "knn"),
            (r"DecisionTree|ExtraTree", "tree"),
            (r"NB$", "naive_bayes"),
            (r"Dummy", "constant"))
DEFAULTS = {"forest": "default_rf_percentile", "linear": "default_linear_percentile"}
# Hand-set: the prior of a program that trains no model on a task without a board and with no
# board anywhere (the boards' own value, ``family_prior("constant", ...)``, is used where one exists).
NO_MODEL = 0.03
SCALE_SENSITIVE = re.compile(r"SGD|SVC|SVR|MLP|KNeighbors")
SCALERS = {"StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "Normalizer",
           "QuantileTransformer", "PowerTransformer", "scale"}
ENCODERS = {"OneHotEncoder", "OrdinalEncoder", "get_dummies", "LabelEncoder", "TargetEncoder",
            "factorize", "Categorical", "map", "cat", "FunctionTransformer", "ColumnTransformer",
            "make_column_transformer"}
# Hand-set (the boards hold no unscaled recipe to fit it to): distance and gradient models on raw
# feature scales keep this share of their family's prior; measured on the dev corpus.
UNSCALED_PENALTY = 0.6
# Board recipes that carry a size: the smallest of each is its own family (``forest-10`` is a
# ``small_forest``, ``tree-depth-2`` a ``stump``); a model falls under it up to the geometric mean
# of that size and the next one on the boards.
_SIZED = {"forest": ("small_forest", r"forest-(\d+)$", "n_estimators"),
          "tree": ("stump", r"tree-depth-(\d+)$", "max_depth")}


def _assets() -> Any:
    return resources.files("wmrl_envs") / "assets"


@lru_cache(maxsize=1)
def boards() -> dict[str, dict[str, list[float]]]:
    """task id -> family -> percentiles of that family's board entries."""
    out: dict[str, dict[str, list[float]]] = {}
    for suite in _assets().iterdir():
        if not suite.is_dir():
            continue
        for task in suite.iterdir():
            board = task / "leaderboard.csv"
            if not board.is_file():
                continue
            rows = list(csv.DictReader(board.read_text().splitlines()))
            fams: dict[str, list[float]] = defaultdict(list)
            n = len(rows)
            for r in rows:
                fam = next((f for prefix, f in _RECIPES if r["team"].startswith(prefix)), None)
                if fam is not None:
                    fams[fam].append(1.0 - (float(r["rank"]) - 0.5) / n)
            out[task.name] = dict(fams)
    return out


@lru_cache(maxsize=1)
def baselines() -> dict[str, dict[str, Any]]:
    """task id -> the measured default-model percentiles (``baselines.json`` of every suite)."""
    out: dict[str, dict[str, Any]] = {}
    for suite in _assets().iterdir():
        f = suite / "baselines.json"
        if suite.is_dir() and f.is_file():
            out.update(json.loads(f.read_text()))
    return out


@lru_cache(maxsize=1)
def global_prior() -> dict[str, float]:
    """family -> mean over boards of the family's median percentile."""
    acc: dict[str, list[float]] = defaultdict(list)
    for fams in boards().values():
        for fam, ps in fams.items():
            acc[fam].append(sorted(ps)[len(ps) // 2])
    return {f: sum(v) / len(v) for f, v in acc.items()}


@lru_cache(maxsize=8)
def size_threshold(fam: str) -> float | None:
    """The largest size argument that still counts as the small recipe of ``fam`` (see ``_SIZED``)."""
    pattern = _SIZED[fam][1]
    sizes = sorted({int(m.group(1)) for board in _board_teams() for t in board if (m := re.match(pattern, t))})
    if not sizes:
        return None
    return (sizes[0] * sizes[1]) ** 0.5 if len(sizes) > 1 else float(sizes[0])


@lru_cache(maxsize=1)
def _board_teams() -> tuple[tuple[str, ...], ...]:
    out = []
    for suite in _assets().iterdir():
        for task in suite.iterdir() if suite.is_dir() else ():
            board = task / "leaderboard.csv"
            if board.is_file():
                out.append(tuple(r["team"] for r in csv.DictReader(board.read_text().splitlines())))
    return tuple(out)


def family(qualname: str) -> str | None:
    """The board family of a model class, None if it is not a model."""
    name = qualname.rsplit(".", 1)[-1]
    return next((f for pattern, f in _CLASSES if re.search(pattern, name)), None)


def family_prior(fam: str, task_id: str | None, defaults: bool = False) -> float:
    """The percentile ``fam`` reaches on the task's board (its measured default where ``defaults``)."""
    base = baselines().get(task_id or "", {})
    if defaults and fam in DEFAULTS and DEFAULTS[fam] in base:
        return float(base[DEFAULTS[fam]])
    ps = boards().get(task_id or "", {}).get(fam)
    if ps:
        return sorted(ps)[len(ps) // 2]
    return global_prior().get(fam, NO_MODEL)


def _size(fam: str, kwargs: Mapping[str, Any]) -> str:
    if fam not in _SIZED:
        return fam
    small, _, arg = _SIZED[fam]
    size, limit = kwargs.get(arg), size_threshold(fam)
    if isinstance(size, (int, float)) and not isinstance(size, bool) and limit is not None and size <= limit:
        return small
    return fam


def quality_prior(prog: Program, context: Mapping[str, Any]) -> tuple[float, str]:
    """The prior and a short reason naming what drove it."""
    task_id = context.get("task_id")
    models = [(_size(f, kw), q.rsplit(".", 1)[-1], kw) for q, kw in (r.value for r in prog.estimators)
              if q and (f := family(q)) is not None]
    if prog.handmade_model:
        models.append(("linear", prog.handmade_model, {}))
    if not models:
        return family_prior("constant", task_id), "no model is trained"
    fam, name, kwargs = max(models, key=lambda m: family_prior(m[0], task_id, defaults=not m[2]))
    prior = family_prior(fam, task_id, defaults=not kwargs)
    why = [f"{name}: {fam} reaches ~{prior:.2f} on the board"]
    if SCALE_SENSITIVE.search(name) and not prog.used & SCALERS:
        prior *= UNSCALED_PENALTY
        why.append("unscaled features")
    return min(0.98, max(0.02, prior)), ", ".join(why)
