"""A prior on how well a program that runs will score, from its model family and preprocessing.

On tabular tasks leaderboards order model families roughly as boosted trees and ensembles >
forests > linear models > single trees, kNN and naive Bayes > constants; preprocessing that fits
the model (scaling for distance- and gradient-based models, encoding categoricals, imputing) and
metric-appropriate outputs (probabilities for AUC and log-loss) move a solution within that order.
The prior encodes this ordering on [0, 1]; online debiasing maps it to the real reward scale.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from wmrl_envs.world_models.program import Program, is_numeric

# (pattern on the class name, prior); the first match wins.
FAMILY_PRIOR: tuple[tuple[str, float], ...] = (
    (r"Stacking|Voting", 0.80),
    (r"HistGradientBoosting|LGBM|XGB|CatBoost", 0.76),
    (r"GradientBoosting", 0.72),
    (r"RandomForest", 0.66),
    (r"ExtraTrees", 0.63),
    (r"Bagging|AdaBoost", 0.55),
    (r"Logistic|Ridge|Lasso|ElasticNet|LinearRegression|SGD|LinearSVC|LinearSVR", 0.50),
    (r"SVC|SVR|MLP", 0.45),
    (r"KNeighbors", 0.38),
    (r"DecisionTree", 0.34),
    (r"NB$", 0.30),
    (r"Dummy", 0.05),
)
NO_MODEL = 0.03
SCALE_SENSITIVE = re.compile(r"Logistic|Ridge|Lasso|ElasticNet|SGD|SVC|SVR|MLP|KNeighbors")
SCALERS = {"StandardScaler", "MinMaxScaler", "RobustScaler", "MaxAbsScaler", "Normalizer",
           "QuantileTransformer", "PowerTransformer"}
ENCODERS = {"OneHotEncoder", "OrdinalEncoder", "get_dummies", "LabelEncoder", "TargetEncoder",
            "factorize", "Categorical", "map", "cat"}
TUNING = {"GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV", "HalvingRandomSearchCV",
          "cross_val_score", "cross_validate", "StratifiedKFold", "KFold"}
PROBABILITY_METRICS = ("auc", "log_loss", "logloss", "cross_entropy", "brier")


def family_prior(qualname: str) -> float | None:
    name = qualname.rsplit(".", 1)[-1]
    for pattern, prior in FAMILY_PRIOR:
        if re.search(pattern, name):
            return prior
    return None


def quality_prior(prog: Program, context: Mapping[str, Any]) -> tuple[float, str]:
    """The prior and a short reason naming what drove it."""
    models = [(p, q.rsplit(".", 1)[-1], kw) for q, kw in (r.value for r in prog.estimators)
              if (p := family_prior(q)) is not None]
    if not models:
        return NO_MODEL, "no model is trained"
    prior, name, kwargs = max(models, key=lambda m: m[0])
    why = [name]
    n_est = kwargs.get("n_estimators", kwargs.get("max_iter"))
    if isinstance(n_est, (int, float)) and n_est < 20 and re.search(r"Forest|Boost|Trees|LGBM|XGB", name):
        prior -= 0.12
        why.append(f"only {n_est:g} trees")
    depth = kwargs.get("max_depth")
    if isinstance(depth, (int, float)) and depth <= 2:
        prior -= 0.10
        why.append(f"max_depth={depth:g}")
    strong = {m[1] for m in models if m[0] >= 0.6}
    if len(strong) > 1:
        prior += 0.03
        why.append("blend")
    used = prog.used
    if SCALE_SENSITIVE.search(name) and not used & SCALERS:
        prior -= 0.08
        why.append("unscaled features")
    files = context.get("files") or {}
    categorical = any(not is_numeric(t) for f in files.values() for c, t in f.get("columns", {}).items()
                      if c not in (context.get("target"), context.get("id_column")))
    if categorical:
        if used & ENCODERS:
            prior += 0.03
            why.append("encodes categoricals")
        elif "select_dtypes" in used:
            prior -= 0.05
            why.append("drops categorical columns")
    if used & TUNING:
        prior += 0.03
        why.append("cross-validated")
    metric = str(context.get("metric", "")).lower()
    if any(m in metric for m in PROBABILITY_METRICS) and not used & {"predict_proba", "decision_function"}:
        prior -= 0.20
        why.append(f"hard labels for {metric}")
    return min(0.98, max(0.02, prior)), ", ".join(why)
