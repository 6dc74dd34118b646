"""TemplatePolicy: a contextual softmax policy over ML solution recipes that writes real code.

A recipe is a preprocessing choice × a model family with its key hyper-parameters. Some recipes fail
on some data (no NaN handling before a linear model or kNN; dropping categorical columns loses signal),
so the policy must learn which recipe suits which task. It conditions on task features read from the
env's ``wm_context`` (type, rows, columns, categorical and NaN fractions):

    φ(x)      = [1, binary, multiclass, regression, log10(rows)/4, columns/50, cat share, NaN share, any NaN]
    π(a | x)  = softmax(θ φ(x))_a
    ∇ log π   = (onehot(a) - π(·|x)) ⊗ φ(x)
    θ        += lr · (1/N) Σ_i A_i ∇ log π(a_i | x_i)          (ascent on the GRPO objective)

numpy only; trains on a CPU in minutes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from wmrl_envs.mle.metrics import get_metric

PREPROCESSING = ("raw", "onehot", "ordinal")
MODELS = ("dummy", "linear", "knn", "tree", "rf", "extra_trees", "hgb", "hgb_tuned")
FEATURES = ("bias", "binary", "multiclass", "regression", "log_rows", "n_columns", "cat_share", "nan_share", "any_nan")

_ESTIMATORS = {
    # model: (import line, classifier, regressor), as source text
    "dummy": ("from sklearn.dummy import DummyClassifier, DummyRegressor",
              "DummyClassifier(strategy='prior')", "DummyRegressor()"),
    "linear": ("from sklearn.linear_model import LogisticRegression, Ridge",
               "LogisticRegression(C=1.0, max_iter=300)", "Ridge(alpha=1.0)"),
    "knn": ("from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor",
            "KNeighborsClassifier(n_neighbors=15)", "KNeighborsRegressor(n_neighbors=15)"),
    "tree": ("from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor",
             "DecisionTreeClassifier(max_depth=6, random_state=0)",
             "DecisionTreeRegressor(max_depth=6, random_state=0)"),
    "rf": ("from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor",
           "RandomForestClassifier(n_estimators=100, min_samples_leaf=2, random_state=0)",
           "RandomForestRegressor(n_estimators=100, min_samples_leaf=2, random_state=0)"),
    "extra_trees": ("from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor",
                    "ExtraTreesClassifier(n_estimators=150, min_samples_leaf=2, random_state=0)",
                    "ExtraTreesRegressor(n_estimators=150, min_samples_leaf=2, random_state=0)"),
    "hgb": ("from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor",
            "HistGradientBoostingClassifier(random_state=0)", "HistGradientBoostingRegressor(random_state=0)"),
    "hgb_tuned": (
        "from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor",
        "HistGradientBoostingClassifier(learning_rate=0.05, max_iter=300, max_leaf_nodes=15, l2_regularization=1.0, "
        "random_state=0)",
        "HistGradientBoostingRegressor(learning_rate=0.05, max_iter=300, max_leaf_nodes=15, l2_regularization=1.0, "
        "random_state=0)",
    ),
}

_PREPROCESS = {
    # Numeric columns as they are: NaNs stay, categorical columns are dropped.
    "raw": """\
X = X[num_cols]
X_test = X_test[num_cols]
""",
    "onehot": """\
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
prep = ColumnTransformer([
    ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), num_cols),
    ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                          OneHotEncoder(handle_unknown="ignore", max_categories=20, sparse_output=False)), cat_cols),
])
X = prep.fit_transform(X)
X_test = prep.transform(X_test)
""",
    "ordinal": """\
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.preprocessing import OrdinalEncoder
prep = ColumnTransformer([
    ("num", SimpleImputer(strategy="median"), num_cols),
    ("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                           encoded_missing_value=-1), cat_cols),
])
X = prep.fit_transform(X)
X_test = prep.transform(X_test)
""",
}

_HEADER = """\
import numpy as np
import pandas as pd
{model_import}

TARGET, ID = {target!r}, {id_column!r}
train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sub = pd.read_csv("data/sample_submission.csv")
y = train[TARGET]
X = train.drop(columns=[c for c in (TARGET, ID) if c in train.columns])
X_test = test[X.columns].copy()
num_cols = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
cat_cols = [c for c in X.columns if c not in num_cols]
for c in cat_cols:
    X[c] = X[c].astype(str).where(X[c].notna())
    X_test[c] = X_test[c].astype(str).where(X_test[c].notna())
"""

_CANON = """\
def canon(v):
    try:
        f = float(v)
        return str(int(f)) if f.is_integer() else str(f)
    except (TypeError, ValueError):
        return str(v).strip()
"""

_OUTPUT = {
    "proba": _CANON
    + """\
model = {clf}
y_text = y.map(canon)
model.fit(X, y_text)
proba = model.predict_proba(X_test)
classes = list(model.classes_)
cols = list(sub.columns[1:])
if len(cols) == 1:  # binary: P(positive), the larger label as in scikit-learn
    positive = "1" if set(classes) <= {{"0", "1"}} else sorted(classes)[-1]
    sub[cols[0]] = proba[:, classes.index(positive)] if positive in classes else 0.0
else:
    for c in cols:
        sub[c] = proba[:, classes.index(canon(c))] if canon(c) in classes else 0.0
""",
    "label": """\
model = {clf}
model.fit(X, y)
sub[sub.columns[1]] = model.predict(X_test)
""",
    "value": """\
model = {reg}
model.fit(X, y)
pred = model.predict(X_test)
if y.min() >= 0:
    pred = np.clip(pred, 0, None)
sub[sub.columns[1]] = pred
""",
}

_FOOTER = """\
sub[sub.columns[0]] = test[ID].values
sub.to_csv("submission.csv", index=False)
print("wrote submission.csv", sub.shape)
"""


@dataclass(frozen=True)
class Recipe:
    preprocessing: str
    model: str

    @property
    def name(self) -> str:
        return f"{self.preprocessing}+{self.model}"


# A dummy model ignores the features, so one preprocessing of it is enough.
RECIPES = (Recipe("raw", "dummy"),) + tuple(
    Recipe(p, m) for p, m in itertools.product(PREPROCESSING, MODELS) if m != "dummy"
)


def task_features(context: Mapping) -> np.ndarray:
    """φ(x) from a ``TaskContext``: the env's ``info["wm_context"]``."""
    train = (context.get("files") or {}).get("train.csv")
    if not train:
        raise ValueError("wm_context has no schema for train.csv: TemplatePolicy needs an MLE text env")
    target, id_col = context.get("target"), context.get("id_column")
    cols = {c: d for c, d in train["columns"].items() if c not in (target, id_col)}
    n = max(1, len(cols))
    cat_share = sum(not _is_numeric(d) for d in cols.values()) / n
    nan = train.get("nan_fraction") or {}
    nan_share = sum(float(nan.get(c, 0.0)) > 0 for c in cols) / n
    kind = context.get("task_type", "")
    return np.array(
        [1.0, kind == "binary", kind == "multiclass", kind == "regression",
         math.log10(max(10, train["n_rows"])) / 4, len(cols) / 50, cat_share, nan_share, float(nan_share > 0)],
        dtype=np.float64,
    )


def _is_numeric(dtype: str) -> bool:
    return dtype.startswith(("int", "float", "uint", "bool"))


def render(recipe: Recipe, context: Mapping) -> str:
    """The Python program for ``recipe`` on the task ``context`` describes."""
    kind = get_metric(context["metric"]).kind
    model_import, clf, reg = _ESTIMATORS[recipe.model]
    return (
        _HEADER.format(target=context["target"], id_column=context.get("id_column", "id"), model_import=model_import)
        + _PREPROCESS[recipe.preprocessing]
        + _OUTPUT[kind].format(clf=clf, reg=reg)
        + _FOOTER
    )


class TemplatePolicy:
    """Softmax over ``RECIPES`` with logits linear in the task features.

    Args:
        lr: step size of the policy-gradient ascent (10: the best of 1-20 for 20 updates in an
            offline replay of real outcomes on the train tasks, never on held-out ones).
        temperature: divides the logits when sampling (1: the policy itself).
        seed: seeds the tiny initial noise on θ that breaks ties between recipes.
    """

    def __init__(self, lr: float = 10.0, temperature: float = 1.0, seed: int = 0) -> None:
        self.lr = float(lr)
        self.temperature = float(temperature)
        self.theta = np.random.default_rng(seed).normal(0.0, 1e-3, (len(RECIPES), len(FEATURES)))

    def probs(self, context: Mapping) -> np.ndarray:
        logits = self.theta @ task_features(context) / self.temperature
        z = np.exp(logits - logits.max())
        return z / z.sum()

    def sample(self, obs, info: dict, rng: np.random.Generator) -> tuple[str, tuple[int, np.ndarray]]:
        context = info.get("wm_context") or {}
        phi = task_features(context)
        a = int(rng.choice(len(RECIPES), p=self.probs(context)))
        return render(RECIPES[a], context), (a, phi)

    def greedy(self, context: Mapping) -> Recipe:
        return RECIPES[int(np.argmax(self.probs(context)))]

    def distribution(self, info: dict) -> tuple[np.ndarray, list[str]]:
        """π(·|task) and the program of every recipe (for exact evaluation)."""
        context = info.get("wm_context") or {}
        return self.probs(context), [render(r, context) for r in RECIPES]

    def act_greedy(self, obs, info: dict, rng: np.random.Generator | None = None):
        """The most likely recipe's code (for evaluation); same signature as ``sample``."""
        context = info.get("wm_context") or {}
        a = int(np.argmax(self.probs(context)))
        return render(RECIPES[a], context), (a, task_features(context))

    def update(self, records: Sequence[Sequence[tuple[int, np.ndarray]]], advantages: np.ndarray) -> dict:
        """Ascend ``(1/N) Σ_i A_i log π(a_i | x_i)``; returns the surrogate loss (its negative)."""
        grad = np.zeros_like(self.theta)
        objective = 0.0
        n = max(1, len(records))
        for steps, adv in zip(records, advantages):
            for a, phi in steps:
                logits = self.theta @ phi
                log_p = logits - logits.max() - np.log(np.exp(logits - logits.max()).sum())
                g = -np.exp(log_p)
                g[a] += 1.0
                grad += adv * np.outer(g, phi) / n
                objective += adv * log_p[a] / n
        self.theta += self.lr * grad
        return {"loss": float(-objective), "grad_norm": float(np.linalg.norm(grad))}

    def state_dict(self) -> dict:
        return {"lr": self.lr, "temperature": self.temperature, "theta": self.theta.tolist()}

    def load_state_dict(self, state: dict) -> None:
        self.lr = float(state["lr"])
        self.temperature = float(state["temperature"])
        self.theta = np.asarray(state["theta"], dtype=np.float64)
