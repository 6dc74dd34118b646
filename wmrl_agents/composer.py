"""ComposerPolicy: a factorized contextual softmax over the slots of a solution program.

A program is one variant per slot (reading, missing values, encoding, features, target transform,
model, tuning, output, code style), rendered into one runnable script for the task described by the
env's ``wm_context``. The variants are what LLM agents write, natural bugs included (``dropna`` on
the test set, ``OneHotEncoder`` without ``handle_unknown``, a forgotten inverse transform, ids
written as 1..n, a search far over the time budget, ...), plus silent failures that run but score
near the floor (a prior-only model, predictions misaligned with the ids, a catch-all fallback).
With task features φ(x) (:func:`wmrl_agents.template.task_features`) and one weight matrix per slot:

    π_s(a | x)      = softmax(θ_s φ(x))_a
    π(program | x)  = Π_s π_s(a_s | x)
    ∇_{θ_s} log π   = (onehot(a_s) - π_s(·|x)) ⊗ φ(x)
    θ_s            += lr · (1/N) Σ_i A_i ∇_{θ_s} log π(a_i | x_i)      (ascent on the GRPO objective)

The default lr (10) comes from an offline check on a synthetic reward only (no real task): the share
of slots on a preferred variant (which depends on the task type), GRPO groups of 4, 4 groups per
update, 30 updates, the contexts of three train tasks (their features only), three seeds. Noise-free, the expected
reward grew with lr
(0.16, 0.22, 0.40, 0.70, 0.85 for lr 0.3, 1, 3, 10, 30); with N(0, 0.3) noise on the reward, lr 3
and 10 tied (0.36) and 30 or 100 did worse (0.30, 0.26: collapse onto noise). 10 is the largest that
stays robust to noise.

numpy only; every program seeds its models (``random_state=0``) so outcomes can be cached.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from wmrl_agents.template import FEATURES, task_features
from wmrl_envs.mle.metrics import get_metric

SLOTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "read": ("plain", "drop_id", "drop_nan_cols", "coerce_dtypes", "dedupe", "drop_useless"),
    "missing": ("none", "median", "mean", "most_frequent", "zero", "minus_999", "dropna_train",
                "dropna_both", "chained_inplace"),
    "encode": ("dummies_concat", "dummies_separate", "dummies_aligned", "onehot", "onehot_strict",
               "codes_separate", "ordinal", "drop", "target_mean", "frequency"),
    "features": ("none", "log1p_skewed", "products", "ratios", "poly2", "row_stats"),
    "target": ("none", "transform", "forgot_inverse", "rescale"),
    "model": ("linear", "ridge", "lasso", "knn", "tree", "rf", "extra_trees", "hgb", "hgb_slow",
              "gb", "svm", "naive_bayes", "sm_linear", "sm_glm", "np_lstsq", "np_gd", "dummy"),
    "tuning": ("none", "holdout", "kfold5", "cv3", "grid", "random", "exhaustive"),
    "output": ("correct", "frame", "merge", "postprocess", "wrong_type", "ids_range", "head50",
               "sorted", "wrong_class", "try_fallback"),
    "style": ("flat", "main", "functions", "loop", "pipeline"),
})  # fmt: skip


@dataclass(frozen=True)
class Snippet:
    """Source text of one slot's variant.

    ``code`` runs in the program's flow; ``each`` runs once per frame (``$df`` is ``X``, then
    ``X_test``, or a loop variable); ``defs`` go at module level; ``imports`` are hoisted.
    """

    code: str = ""
    each: str = ""
    imports: tuple[str, ...] = ()
    defs: str = ""


@dataclass(frozen=True)
class RenderView:
    """What rendering needs of a ``wm_context``."""

    mode: str  # value | label | binary | multi (the last two: probabilities)
    target: str
    id_column: str
    numeric: tuple[str, ...]  # numeric feature columns, most distinct values first


def task_of(context: Mapping) -> RenderView:
    """The rendering view of an env's ``wm_context``."""
    kind = get_metric(context["metric"]).kind
    mode = (
        kind if kind != "proba" else ("binary" if context.get("task_type") == "binary" else "multi")
    )
    train = context["files"]["train.csv"]
    target, id_col = context["target"], context.get("id_column") or "id"
    uniques = train.get("n_unique") or {}
    numeric = [
        c for c, d in train["columns"].items()
        if c not in (target, id_col) and d.startswith(("int", "float", "uint"))
    ]  # fmt: skip
    numeric.sort(key=lambda c: -int(uniques.get(c, 0)))
    return RenderView(mode, target, id_col, tuple(numeric))


# ---- reading and cleaning ---------------------------------------------------------------------

_READ_BASE = """\
train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sub = pd.read_csv("data/sample_submission.csv")
"""
_SPLIT = """\
test_ids = test[ID]
y = train[TARGET]
X = train.drop(columns={drop})
X_test = test[X.columns].copy()
"""
_READ_PREP = {
    "plain": "",
    "drop_id": "",
    "drop_nan_cols": """\
nan_share = train.isna().mean()
high_nan = [c for c in train.columns if nan_share[c] > 0.3 and c != TARGET]
print("dropping high-NaN columns:", high_nan)
""",
    "coerce_dtypes": """\
for frame in (train, test):
    for c in frame.columns:
        if frame[c].dtype == bool:
            frame[c] = frame[c].astype(int)
        elif not pd.api.types.is_numeric_dtype(frame[c]):
            as_num = pd.to_numeric(frame[c], errors="coerce")
            if as_num.notna().mean() > 0.9:
                frame[c] = as_num
""",
    "dedupe": """\
before = len(train)
train = train.drop_duplicates(subset=[c for c in train.columns if c != ID]).reset_index(drop=True)
print("dropped", before - len(train), "duplicate rows")
""",
    "drop_useless": """\
def useless(c):
    distinct = train[c].nunique(dropna=False)
    return distinct <= 1 or (distinct == len(train) and not pd.api.types.is_numeric_dtype(train[c]))

constant = [c for c in train.columns if c != TARGET and useless(c)]
print("dropping constant and id-like columns:", constant)
""",
}
_READ_DROP = {
    "plain": "[TARGET]",
    "drop_nan_cols": "high_nan + [TARGET, ID]",
    "drop_useless": "constant + [TARGET, ID]",
}


def _read(variant: str) -> Snippet:
    drop = _READ_DROP.get(variant, "[TARGET, ID]")
    return Snippet(_READ_BASE + _READ_PREP[variant] + _SPLIT.format(drop=drop))


# ---- missing values ---------------------------------------------------------------------------

_NUM = 'num_cols = X.select_dtypes("number").columns\n'
_DROP_TRAIN_NAN = """\
keep = X.notna().all(axis=1)
print("dropping", int((~keep).sum()), "train rows with NaN")
X, y = X[keep], y[keep]
"""
_MISSING = {
    "none": Snippet("# the models get the NaNs as they are\n"),
    "median": Snippet(_NUM + "medians = X[num_cols].median()\n", "$df[num_cols] = $df[num_cols].fillna(medians)\n"),
    "mean": Snippet(
        _NUM + "cat_cols = X.columns.difference(num_cols)\nmeans = X[num_cols].mean()\n",
        '$df[num_cols] = $df[num_cols].fillna(means)\n$df[cat_cols] = $df[cat_cols].fillna("missing")\n',
    ),
    "most_frequent": Snippet("modes = X.mode().iloc[0]\n", "$df.fillna(modes, inplace=True)\n"),
    "zero": Snippet(_NUM, "$df[num_cols] = $df[num_cols].fillna(0)\n"),
    "minus_999": Snippet("", "$df.fillna(-999, inplace=True)\n"),
    "dropna_train": Snippet(_DROP_TRAIN_NAN),
    "dropna_both": Snippet(_DROP_TRAIN_NAN + "X_test = X_test.dropna()\n"),
    "chained_inplace": Snippet("""\
for c in X.columns:
    if pd.api.types.is_numeric_dtype(X[c]) and X[c].isna().any():
        X[c].fillna(X[c].median(), inplace=True)
        X_test[c].fillna(X[c].median(), inplace=True)
"""),
}  # fmt: skip


# ---- categorical encoding ---------------------------------------------------------------------

_CATS = 'cat_cols = list(X.select_dtypes(exclude="number").columns)\n'
_ONEHOT = (
    _CATS
    + """\
if cat_cols:
    enc = OneHotEncoder({args}sparse_output=False)
    enc.fit(X[cat_cols].astype(str))

    def one_hot(frame):
        dummies = enc.transform(frame[cat_cols].astype(str))
        dummies = pd.DataFrame(dummies, columns=enc.get_feature_names_out(), index=frame.index)
        return pd.concat([frame.drop(columns=cat_cols), dummies], axis=1)

    X, X_test = one_hot(X), one_hot(X_test)
"""
)
_OHE = ("from sklearn.preprocessing import OneHotEncoder",)
_ENCODE = {
    "dummies_concat": Snippet("""\
full = pd.get_dummies(pd.concat([X, X_test], keys=["train", "test"]), dtype=float)
X, X_test = full.loc["train"], full.loc["test"]
"""),
    "dummies_separate": Snippet("X = pd.get_dummies(X, dtype=float)\nX_test = pd.get_dummies(X_test, dtype=float)\n"),
    "dummies_aligned": Snippet("""\
X = pd.get_dummies(X, dtype=float)
X_test = pd.get_dummies(X_test, dtype=float).reindex(columns=X.columns, fill_value=0)
"""),
    "onehot": Snippet(_ONEHOT.format(args='handle_unknown="ignore", '), imports=_OHE),
    "onehot_strict": Snippet(_ONEHOT.format(args=""), imports=_OHE),
    "codes_separate": Snippet(_CATS, 'for c in cat_cols:\n    $df[c] = $df[c].astype("category").cat.codes\n'),
    "ordinal": Snippet(_CATS + """\
if cat_cols:
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    enc.fit(X[cat_cols].astype(str))
    X[cat_cols] = enc.transform(X[cat_cols].astype(str))
    X_test[cat_cols] = enc.transform(X_test[cat_cols].astype(str))
""", imports=("from sklearn.preprocessing import OrdinalEncoder",)),
    "drop": Snippet(_CATS, "$df.drop(columns=cat_cols, inplace=True)\n"),
    "target_mean": Snippet(_CATS + """\
y_num = y if pd.api.types.is_numeric_dtype(y) else pd.Series(pd.factorize(y)[0], index=y.index)
prior = y_num.mean()
for c in cat_cols:
    stats = y_num.groupby(X[c]).agg(["mean", "count"])
    smooth = (stats["mean"] * stats["count"] + prior * 10) / (stats["count"] + 10)
    X[c] = X[c].map(smooth).astype(float).fillna(prior)
    X_test[c] = X_test[c].map(smooth).astype(float).fillna(prior)
"""),
    "frequency": Snippet(
        _CATS + "freqs = {c: X[c].value_counts(normalize=True) for c in cat_cols}\n",
        "for c in cat_cols:\n    $df[c] = $df[c].map(freqs[c]).astype(float).fillna(0.0)\n",
    ),
}  # fmt: skip


# ---- feature engineering ----------------------------------------------------------------------

_POLY = """\
poly_cols = {cols!r}
poly = PolynomialFeatures(degree=2, include_bias=False).fit(X[poly_cols])

def add_poly(frame):
    extra = pd.DataFrame(poly.transform(frame[poly_cols]), columns=poly.get_feature_names_out(), index=frame.index)
    return pd.concat([frame, extra.drop(columns=poly_cols)], axis=1)

X, X_test = add_poly(X), add_poly(X_test)
"""
_NO_NUMERIC = Snippet("# too few numeric columns to combine\n")


def _pairs(task: RenderView, op: str, sep: str) -> Snippet:
    cols = task.numeric[:3]
    lines = [
        f'$df["{a}{sep}{b}"] = $df[{a!r}] {op} $df[{b!r}]\n'
        for i, a in enumerate(cols) for b in cols[i + 1:]
    ]  # fmt: skip
    return Snippet("", "".join(lines)) if lines else _NO_NUMERIC


def _features(variant: str, task: RenderView) -> Snippet:
    if variant == "products":
        return _pairs(task, "*", "_x_")
    if variant == "ratios":
        return _pairs(task, "/", "_per_")
    if variant == "poly2":
        cols = list(task.numeric[:4])
        imports = ("from sklearn.preprocessing import PolynomialFeatures",)
        return Snippet(_POLY.format(cols=cols), imports=imports) if cols else _NO_NUMERIC
    return _FEATURES[variant]


_FEATURES = {
    "none": Snippet("# no feature engineering\n"),
    "log1p_skewed": Snippet(
        _NUM + "skewed = [c for c in num_cols if X[c].min() >= 0 and X[c].skew() > 1]\n",
        "$df[skewed] = np.log1p($df[skewed])\n",
    ),
    "row_stats": Snippet(_NUM, """\
$df["row_mean"] = $df[num_cols].mean(axis=1)
$df["row_std"] = $df[num_cols].std(axis=1)
$df["row_nan"] = $df[num_cols].isna().sum(axis=1)
"""),
}  # fmt: skip


# ---- target transform: (forward, inverse on predicted values/labels, inverse on class names) -----

_ENCODE_Y = "le = LabelEncoder()\ny = pd.Series(le.fit_transform(y), index=y.index)\n"
_LE = ("from sklearn.preprocessing import LabelEncoder",)
_TARGET_VALUE = {
    "none": ("# target used as is\n", "", ""),
    "transform": ("y = np.log1p(y)\n", "pred = np.expm1(pred)\n", ""),
    "forgot_inverse": ("y = np.log1p(y)\n", "", ""),
    "rescale": (
        "y_mean, y_std = y.mean(), y.std()\ny = (y - y_mean) / y_std\n",
        "pred = pred * y_std + y_mean\n",
        "",
    ),
}
_TARGET_CLASS = {
    "none": ("# target used as is\n", "", ""),
    "transform": (_ENCODE_Y, "pred = le.inverse_transform(np.asarray(pred).astype(int))\n",
                  "classes = list(le.inverse_transform(classes))\n"),
    "forgot_inverse": (_ENCODE_Y, "", ""),
    "rescale": ("counts = y.value_counts()\nkeep = y.map(counts) >= 10\nX, y = X[keep], y[keep]\n", "", ""),
}  # fmt: skip


def _target(variant: str, task: RenderView) -> tuple[Snippet, str, str]:
    table = _TARGET_VALUE if task.mode == "value" else _TARGET_CLASS
    forward, inv_pred, inv_classes = table[variant]
    imports = _LE if forward is _ENCODE_Y else ()
    return Snippet(forward, imports=imports), inv_pred, inv_classes


# ---- models: (imports, classifier, regressor, classifier grid, regressor grid) ------------------

_SM_CLF = '''\
class SMClassifier(BaseEstimator, ClassifierMixin):
    """statsmodels Logit (MNLogit for several classes; GLM Binomial if glm) as an estimator."""

    def __init__(self, glm=False):
        self.glm = glm

    def fit(self, X, y):
        A = sm.add_constant(np.asarray(X, dtype=float), has_constant="add")
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        if len(self.classes_) > 2:
            self.result_ = sm.MNLogit(codes, A).fit(disp=0)
        elif self.glm:
            self.result_ = sm.GLM(codes, A, family=sm.families.Binomial()).fit()
        else:
            self.result_ = sm.Logit(codes, A).fit(disp=0)
        return self

    def predict_proba(self, X):
        A = sm.add_constant(np.asarray(X, dtype=float), has_constant="add")
        p = np.asarray(self.result_.predict(A))
        return p if p.ndim == 2 else np.column_stack([1 - p, p])

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
'''
_SM_REG = '''\
class SMRegressor(BaseEstimator, RegressorMixin):
    """statsmodels OLS (GLM Poisson if glm) as an estimator."""

    def __init__(self, glm=False):
        self.glm = glm

    def fit(self, X, y):
        A = sm.add_constant(np.asarray(X, dtype=float), has_constant="add")
        y = np.asarray(y, dtype=float)
        model = sm.GLM(y, A, family=sm.families.Poisson()) if self.glm else sm.OLS(y, A)
        self.result_ = model.fit()
        return self

    def predict(self, X):
        return self.result_.predict(sm.add_constant(np.asarray(X, dtype=float), has_constant="add"))
'''
_LSQ_CLF = '''\
class LeastSquaresClassifier(BaseEstimator, ClassifierMixin):
    """One-vs-rest least squares on one-hot targets (numpy)."""

    def __init__(self, fit_intercept=True):
        self.fit_intercept = fit_intercept

    def _design(self, X):
        X = np.asarray(X, dtype=float)
        return np.c_[np.ones(len(X)), X] if self.fit_intercept else X

    def fit(self, X, y):
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        Y = np.eye(len(self.classes_))[codes]
        self.coef_ = np.linalg.lstsq(self._design(X), Y, rcond=None)[0]
        return self

    def predict_proba(self, X):
        scores = np.clip(self._design(X) @ self.coef_, 1e-3, None)
        return scores / scores.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
'''
_LSQ_REG = '''\
class LeastSquares(BaseEstimator, RegressorMixin):
    """Ordinary least squares (numpy)."""

    def __init__(self, fit_intercept=True):
        self.fit_intercept = fit_intercept

    def _design(self, X):
        X = np.asarray(X, dtype=float)
        return np.c_[np.ones(len(X)), X] if self.fit_intercept else X

    def fit(self, X, y):
        self.coef_ = np.linalg.lstsq(self._design(X), np.asarray(y, dtype=float), rcond=None)[0]
        return self

    def predict(self, X):
        return self._design(X) @ self.coef_
'''
_GD_CLF = '''\
class SoftmaxRegression(BaseEstimator, ClassifierMixin):
    """Multinomial logistic regression by full-batch gradient descent (numpy)."""

    def __init__(self, lr=0.1, n_iter=300, l2=1e-4):
        self.lr, self.n_iter, self.l2 = lr, n_iter, l2

    @staticmethod
    def _softmax(Z):
        Z = np.exp(Z - Z.max(axis=1, keepdims=True))
        return Z / Z.sum(axis=1, keepdims=True)

    def _scale(self, X):
        return (np.asarray(X, dtype=float) - self.mu_) / self.sd_

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        self.mu_, self.sd_ = X.mean(axis=0), X.std(axis=0) + 1e-9
        A = self._scale(X)
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        Y = np.eye(len(self.classes_))[codes]
        self.W_, self.b_ = np.zeros((A.shape[1], Y.shape[1])), np.zeros(Y.shape[1])
        for _ in range(self.n_iter):
            G = self._softmax(A @ self.W_ + self.b_) - Y
            self.W_ -= self.lr * (A.T @ G / len(A) + self.l2 * self.W_)
            self.b_ -= self.lr * G.mean(axis=0)
        return self

    def predict_proba(self, X):
        return self._softmax(self._scale(X) @ self.W_ + self.b_)

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]
'''
_GD_REG = '''\
class GDRegression(BaseEstimator, RegressorMixin):
    """Linear regression by full-batch gradient descent on standardized features (numpy)."""

    def __init__(self, lr=0.1, n_iter=500, l2=1e-4):
        self.lr, self.n_iter, self.l2 = lr, n_iter, l2

    def _scale(self, X):
        return (np.asarray(X, dtype=float) - self.mu_) / self.sd_

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        self.mu_, self.sd_ = X.mean(axis=0), X.std(axis=0) + 1e-9
        A = self._scale(X)
        self.w_, self.b_ = np.zeros(A.shape[1]), y.mean()
        for _ in range(self.n_iter):
            r = A @ self.w_ + self.b_ - y
            self.w_ -= self.lr * (A.T @ r / len(A) + self.l2 * self.w_)
            self.b_ -= self.lr * r.mean()
        return self

    def predict(self, X):
        return self._scale(X) @ self.w_ + self.b_
'''
_BASE = "from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin"
_SM = ("import statsmodels.api as sm", _BASE)


@dataclass(frozen=True)
class Model:
    imports: tuple[str, ...]
    clf: str
    reg: str
    clf_grid: dict
    reg_grid: dict
    defs: tuple[str, str] = ("", "")  # module-level classes: (classifier, regressor)
    proba_clf: str = ""  # the classifier when probabilities are needed, if it differs
    proba_grid: dict | None = None  # its grid, if it differs


_LOGREG = "from sklearn.linear_model import LogisticRegression"
MODELS: Mapping[str, Model] = MappingProxyType({
    "linear": Model((_LOGREG, "from sklearn.linear_model import LinearRegression"),
                    "LogisticRegression(max_iter=1000)", "LinearRegression()",
                    {"C": [0.1, 1.0, 10.0]}, {"fit_intercept": [True, False]}),
    "ridge": Model((_LOGREG, "from sklearn.linear_model import Ridge, RidgeClassifier"),
                   "RidgeClassifier(alpha=1.0)", "Ridge(alpha=1.0)",
                   {"alpha": [0.1, 1.0, 10.0]}, {"alpha": [0.1, 1.0, 10.0]},
                   proba_clf="LogisticRegression(C=0.1, max_iter=1000)", proba_grid={"C": [0.01, 0.1, 1.0]}),
    "lasso": Model((_LOGREG, "from sklearn.linear_model import Lasso"),
                   'LogisticRegression(penalty="l1", solver="liblinear", C=1.0, random_state=0)',
                   "Lasso(alpha=0.1, max_iter=5000)", {"C": [0.1, 1.0]}, {"alpha": [0.01, 0.1, 1.0]}),
    "knn": Model(("from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor",),
                 "KNeighborsClassifier(n_neighbors=5)", "KNeighborsRegressor(n_neighbors=5)",
                 {"n_neighbors": [5, 15, 31]}, {"n_neighbors": [5, 15, 31]}),
    "tree": Model(("from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor",),
                  "DecisionTreeClassifier(max_depth=8, random_state=0)",
                  "DecisionTreeRegressor(max_depth=8, random_state=0)",
                  {"max_depth": [4, 8, None]}, {"max_depth": [4, 8, None]}),
    "rf": Model(("from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor",),
                "RandomForestClassifier(n_estimators=100, random_state=0)",
                "RandomForestRegressor(n_estimators=100, random_state=0)",
                {"min_samples_leaf": [1, 3]}, {"min_samples_leaf": [1, 3]}),
    "extra_trees": Model(("from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor",),
                         "ExtraTreesClassifier(n_estimators=100, random_state=0)",
                         "ExtraTreesRegressor(n_estimators=100, random_state=0)",
                         {"max_features": ["sqrt", 0.5]}, {"max_features": [0.5, 1.0]}),
    "hgb": Model(("from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor",),
                 "HistGradientBoostingClassifier(random_state=0)", "HistGradientBoostingRegressor(random_state=0)",
                 {"learning_rate": [0.05, 0.1]}, {"learning_rate": [0.05, 0.1]}),
    "hgb_slow": Model(
        ("from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor",),
        "HistGradientBoostingClassifier(learning_rate=0.05, max_iter=300, max_leaf_nodes=15, l2_regularization=1.0, "
        "random_state=0)",
        "HistGradientBoostingRegressor(learning_rate=0.05, max_iter=300, max_leaf_nodes=15, l2_regularization=1.0, "
        "random_state=0)",
        {"max_leaf_nodes": [15, 31]}, {"max_leaf_nodes": [15, 31]}),
    "gb": Model(("from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor",),
                "GradientBoostingClassifier(random_state=0)", "GradientBoostingRegressor(random_state=0)",
                {"max_depth": [2, 3]}, {"max_depth": [2, 3]}),
    "svm": Model(("from sklearn.svm import SVC, SVR",), "SVC(C=1.0)", "SVR(C=1.0)",
                 {"C": [0.1, 1.0, 10.0]}, {"C": [0.1, 1.0, 10.0]},
                 proba_clf="SVC(C=1.0, probability=True, random_state=0)"),
    "naive_bayes": Model(("from sklearn.naive_bayes import GaussianNB",
                          "from sklearn.linear_model import BayesianRidge"),
                         "GaussianNB()", "BayesianRidge()",
                         {"var_smoothing": [1e-9, 1e-6]}, {"alpha_1": [1e-6, 1e-4]}),
    "sm_linear": Model(_SM, "SMClassifier()", "SMRegressor()",
                       {"glm": [False, True]}, {"glm": [False, True]}, (_SM_CLF, _SM_REG)),
    "sm_glm": Model(_SM, "SMClassifier(glm=True)", "SMRegressor(glm=True)",
                    {"glm": [True, False]}, {"glm": [True, False]}, (_SM_CLF, _SM_REG)),
    "np_lstsq": Model((_BASE,), "LeastSquaresClassifier()", "LeastSquares()",
                      {"fit_intercept": [True, False]}, {"fit_intercept": [True, False]}, (_LSQ_CLF, _LSQ_REG)),
    "np_gd": Model((_BASE,), "SoftmaxRegression()", "GDRegression()",
                   {"l2": [1e-4, 1e-2]}, {"l2": [1e-4, 1e-2]}, (_GD_CLF, _GD_REG)),
    "dummy": Model(("from sklearn.dummy import DummyClassifier, DummyRegressor",),
                   'DummyClassifier(strategy="prior")', 'DummyRegressor(strategy="mean")',
                   {"strategy": ["prior", "most_frequent"]}, {"strategy": ["mean", "median"]}),
})  # fmt: skip

_PIPE = (
    "from sklearn.pipeline import Pipeline",
    "from sklearn.preprocessing import StandardScaler",
)


def _model(variant: str, task: RenderView, piped: bool) -> tuple[Snippet, dict]:
    """The snippet defining ``model`` and its small search grid."""
    m = MODELS[variant]
    regress = task.mode == "value"
    expr, grid = (m.reg, m.reg_grid) if regress else (m.clf, m.clf_grid)
    if task.mode in ("binary", "multi") and m.proba_clf:
        expr, grid = m.proba_clf, m.proba_grid or grid
    code = f"model = {expr}\n"
    imports = m.imports
    if piped:
        code += 'model = Pipeline([("scale", StandardScaler()), ("model", model)])\n'
        imports += _PIPE
        grid = {f"model__{k}": v for k, v in grid.items()}
    return Snippet(code, imports=imports, defs=m.defs[regress]), grid


# ---- tuning and validation --------------------------------------------------------------------

_MS = "from sklearn.model_selection import "
_EXHAUSTIVE = """\
search = RandomizedSearchCV(
    {forest}(random_state=0),
    {{"n_estimators": [300, 500, 800], "max_depth": [None, 10, 20, 30],
     "min_samples_leaf": [1, 2, 4], "max_features": ["sqrt", 0.5, 1.0]}},
    n_iter=60, cv=5, random_state=0,
)
search.fit(X, y)
print("best:", search.best_params_, search.best_score_)
model = search.best_estimator_
"""
_SEARCH = """\
search = {search}(model, {grid!r}, {args}cv=3)
search.fit(X, y)
print("best:", search.best_params_, search.best_score_)
model = search.best_estimator_
"""


def _tuning(variant: str, task: RenderView, grid: dict) -> Snippet:
    if variant == "grid":
        return Snippet(
            _SEARCH.format(search="GridSearchCV", grid=grid, args=""),
            imports=(_MS + "GridSearchCV",),
        )
    if variant == "random":
        args = "n_iter=4, random_state=0, "
        code = _SEARCH.format(search="RandomizedSearchCV", grid=grid, args=args)
        return Snippet(code, imports=(_MS + "RandomizedSearchCV",))
    if variant == "exhaustive":
        forest = "RandomForestRegressor" if task.mode == "value" else "RandomForestClassifier"
        imports = (_MS + "RandomizedSearchCV", f"from sklearn.ensemble import {forest}")
        return Snippet(_EXHAUSTIVE.format(forest=forest), imports=imports)
    return _TUNING[variant]


_TUNING = {
    "none": Snippet("model.fit(X, y)\n"),
    "holdout": Snippet("""\
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0)
print("holdout score:", clone(model).fit(X_tr, y_tr).score(X_va, y_va))
model.fit(X, y)
""", imports=(_MS + "train_test_split", "from sklearn.base import clone")),
    "kfold5": Snippet("""\
scores = cross_val_score(model, X, y, cv=KFold(n_splits=5, shuffle=True, random_state=0))
print(f"5-fold CV: {scores.mean():.4f} +- {scores.std():.4f}")
model.fit(X, y)
""", imports=(_MS + "KFold", _MS + "cross_val_score")),
    "cv3": Snippet("""\
print("CV score:", cross_val_score(model, X, y, cv=3).mean())
model.fit(X, y)
""", imports=(_MS + "cross_val_score",)),
}  # fmt: skip


# ---- output -----------------------------------------------------------------------------------
# Markers: <pred> is the target slot's inverse on predicted values or labels, <classes> its inverse
# on the class names; both may be empty.

_SAVE = 'sub.to_csv("submission.csv", index=False)\nprint("wrote submission.csv", sub.shape)\n'
_WRITE = "sub[sub.columns[1]] = pred\nsub[ID] = test_ids.values\n" + _SAVE
_PRED = "pred = model.predict(X_test)\n<pred>"
_CANON = '''\
def canon(v):
    """A class name as the sample submission writes it."""
    try:
        f = float(v)
        return str(int(f)) if f.is_integer() else str(f)
    except (TypeError, ValueError):
        return str(v).strip()
'''
_PROBA = "proba = model.predict_proba(X_test)\nclasses = list(model.classes_)\n<classes>"
_WRITE_PROBA = {
    "binary": """\
labels = [canon(c) for c in classes]
positive = "1" if set(labels) <= {"0", "1"} else sorted(labels)[-1]
sub[sub.columns[1]] = proba[:, labels.index(positive)]
sub[ID] = test_ids.values
"""
    + _SAVE,
    "multi": """\
labels = [canon(c) for c in classes]
for c in sub.columns[1:]:
    sub[c] = proba[:, labels.index(canon(c))] if canon(c) in labels else 0.0
sub[ID] = test_ids.values
"""
    + _SAVE,
}
_FALLBACK = """\
try:
    {what} = model.{method}(test.drop(columns=[ID]))
except Exception as e:
    print("prediction failed, falling back to the prior:", e)
    {what} = {prior}
"""
_SORTED = "X_test = X_test.sort_values(by=X_test.columns[0])\n"


def _output(variant: str, task: RenderView) -> Snippet:
    """The prediction and writing code, with the <pred>/<classes> markers unresolved."""
    proba = task.mode in ("binary", "multi")
    table = _OUT_PROBA if proba else _OUT_POINT
    code = table[variant]
    code = code[task.mode] if isinstance(code, dict) else code
    return Snippet(code, defs=_CANON if "canon(" in code else "")


def _ids(code: str) -> str:
    return code.replace("sub[ID] = test_ids.values", "sub[ID] = np.arange(1, len(sub) + 1)")


def _head(code: str) -> str:
    return code.replace("sub.to_csv(", "sub.head(50).to_csv(")


_P_BIN, _P_MULTI = _PROBA + _WRITE_PROBA["binary"], _PROBA + _WRITE_PROBA["multi"]
_OUT_POINT: dict[str, str | dict[str, str]] = {  # variant -> code, or task mode -> code
    "correct": _PRED + _WRITE,
    "frame": _PRED
    + 'pd.DataFrame({ID: test_ids.values, sub.columns[1]: pred}).to_csv("submission.csv", index=False)\n',
    "merge": _PRED
    + """\
preds = pd.DataFrame({ID: test_ids.values, "pred": pred})
out = sub[[ID]].merge(preds, on=ID, how="left")
out.columns = sub.columns
out.to_csv("submission.csv", index=False)
""",
    "postprocess": {
        "value": _PRED + "pred = np.clip(pred, 0, None)\n" + _WRITE,
        "label": _PRED + "pred = np.asarray(pred).ravel()\n" + _WRITE,
    },
    "wrong_type": {
        "value": _PRED + "pred = np.round(pred).astype(int)\n" + _WRITE,
        "label": "pred = model.predict_proba(X_test)[:, -1]\n<pred>" + _WRITE,
    },
    "ids_range": _ids(_PRED + _WRITE),
    "head50": _head(_PRED + _WRITE),
    "sorted": _SORTED + _PRED + _WRITE,
    "wrong_class": {
        "value": "pred = model.predict(X)\n<pred>" + _WRITE,
        "label": "pred = model.predict_proba(X_test).argmax(axis=1)\n<pred>" + _WRITE,
    },
    "try_fallback": {
        "value": _FALLBACK.format(
            what="pred", method="predict", prior="np.full(len(sub), y.mean())"
        )
        + "<pred>"
        + _WRITE,
        "label": _FALLBACK.format(
            what="pred", method="predict", prior="np.full(len(sub), y.mode()[0])"
        )
        + "<pred>"
        + _WRITE,
    },
}
_OUT_PROBA: dict[str, str | dict[str, str]] = {  # variant -> code, or task mode -> code
    "correct": {"binary": _P_BIN, "multi": _P_MULTI},
    "frame": {
        "binary": _PROBA + ('pd.DataFrame({ID: test_ids.values, sub.columns[1]: proba[:, 1]})'
                            '.to_csv("submission.csv", index=False)\n'),
        "multi": _PROBA + """\
out = pd.DataFrame(proba, columns=[str(c) for c in classes])
out.insert(0, ID, test_ids.values)
out[sub.columns].to_csv("submission.csv", index=False)
""",
    },
    "merge": {
        "binary": _PROBA + """\
preds = pd.DataFrame({ID: test_ids.values, "p": proba[:, 1]})
out = sub[[ID]].merge(preds, on=ID, how="left")
out.columns = sub.columns
out.to_csv("submission.csv", index=False)
""",
        "multi": _PROBA + """\
preds = pd.DataFrame(proba, columns=[str(c) for c in classes])
preds[ID] = test_ids.values
sub[[ID]].merge(preds, on=ID, how="left")[sub.columns].to_csv("submission.csv", index=False)
""",
    },
    "postprocess": {"binary": _PROBA + "proba = np.clip(proba, 0.01, 0.99)\n" + _WRITE_PROBA["binary"],
                    "multi": _PROBA + "proba = np.clip(proba, 0.01, 0.99)\n" + _WRITE_PROBA["multi"]},
    "wrong_type": {
        "binary": _PRED + _WRITE,
        "multi": _PRED + """\
hard = pd.get_dummies(pd.Series(pred)).astype(float)
hard.columns = [str(c) for c in hard.columns]
sub[sub.columns[1:]] = hard.reindex(columns=sub.columns[1:], fill_value=0.0).values
sub[ID] = test_ids.values
""" + _SAVE,
    },
    "ids_range": {"binary": _ids(_P_BIN), "multi": _ids(_P_MULTI)},
    "head50": {"binary": _head(_P_BIN), "multi": _head(_P_MULTI)},
    "sorted": {"binary": _SORTED + _P_BIN, "multi": _SORTED + _P_MULTI},
    "wrong_class": {
        "binary": _PROBA + "sub[sub.columns[1]] = proba[:, 0]\nsub[ID] = test_ids.values\n" + _SAVE,
        "multi": _PROBA + """\
out = pd.DataFrame(proba, columns=[str(c) for c in y.unique()])
sub[sub.columns[1:]] = out.reindex(columns=sub.columns[1:], fill_value=0.0).values
sub[ID] = test_ids.values
""" + _SAVE,
    },
    "try_fallback": {
        mode: _FALLBACK.format(
            what="proba", method="predict_proba",
            prior="np.tile(y.value_counts(normalize=True).sort_index().values, (len(sub), 1))",
        ) + "classes = list(model.classes_)\n<classes>" + _WRITE_PROBA[mode]
        for mode in ("binary", "multi")
    },
}  # fmt: skip


# ---- assembling one program -------------------------------------------------------------------

_FRAME_STAGES = {
    "missing": "fill_missing",
    "encode": "encode_categoricals",
    "features": "add_features",
}
_TITLES = {
    "read": "load and clean", "missing": "missing values", "encode": "categorical columns",
    "features": "feature engineering", "target": "target", "model": "model",
    "tuning": "validation and fit", "output": "predict and write the submission",
}  # fmt: skip


def _per_frame(each: str, loop: bool) -> str:
    if not each:
        return ""
    if loop:
        return "for df in (X, X_test):\n" + textwrap.indent(each.replace("$df", "df"), "    ")
    return each.replace("$df", "X") + each.replace("$df", "X_test")


def _body(snippet: Snippet, style: str) -> str:
    return snippet.code + _per_frame(snippet.each, style == "loop")


def _imports(snippets: Sequence[Snippet]) -> str:
    """The hoisted import block: ``import`` lines, then ``from`` lines merged per module."""
    plain = {"import numpy as np", "import pandas as pd", "import warnings"}
    froms: dict[str, set[str]] = {}
    for line in (i for s in snippets for i in s.imports):
        match = re.fullmatch(r"from (\S+) import (.+)", line)
        if match:
            froms.setdefault(match[1], set()).update(n.strip() for n in match[2].split(","))
        else:
            plain.add(line)
    lines = sorted(plain) + [
        f"from {m} import {', '.join(sorted(n))}" for m, n in sorted(froms.items())
    ]
    return "\n".join(lines) + "\n"


def _stages(choice: Mapping[str, str], task: RenderView) -> dict[str, Snippet]:
    """Each stage's snippet, with the target slot's inverse filled into the output code."""
    model, grid = _model(choice["model"], task, choice["style"] == "pipeline")
    target, inv_pred, inv_classes = _target(choice["target"], task)
    output = _output(choice["output"], task)
    code = output.code.replace("<pred>", inv_pred).replace("<classes>", inv_classes)
    return {
        "read": _read(choice["read"]),
        "missing": _MISSING[choice["missing"]],
        "encode": _ENCODE[choice["encode"]],
        "features": _features(choice["features"], task),
        "target": target,
        "model": model,
        "tuning": _tuning(choice["tuning"], task, grid),
        "output": Snippet(code, defs=output.defs),
    }


def _flow(stages: Mapping[str, Snippet], style: str) -> tuple[str, str]:
    """(module-level helper functions, the program's flow) for ``style``."""
    helpers, flow = [], []
    for name, snippet in stages.items():
        body = _body(snippet, style)
        fn = _FRAME_STAGES.get(name) if style == "functions" else None
        if fn:
            helpers.append(
                f"def {fn}(X, y, X_test):\n"
                + textwrap.indent(body + "return X, y, X_test\n", "    ")
            )
            flow.append(f"# {_TITLES[name]}\nX, y, X_test = {fn}(X, y, X_test)\n")
        else:
            flow.append(f"# {_TITLES[name]}\n{body}")
    return "\n\n\n".join(h.rstrip("\n") for h in helpers), "\n".join(flow)


def render(choice: Mapping[str, str], context: Mapping) -> str:
    """The Python program for ``choice`` (slot name -> variant name) on the task ``context`` describes."""
    task = task_of(context)
    style = choice["style"]
    stages = _stages(choice, task)
    defs = "\n\n\n".join(
        d.rstrip("\n") for d in dict.fromkeys(s.defs for s in stages.values() if s.defs)
    )
    helpers, flow = _flow(stages, style)
    if style == "main":
        flow = (
            "def main():\n"
            + textwrap.indent(flow, "    ")
            + '\n\nif __name__ == "__main__":\n    main()\n'
        )
    head = _imports(list(stages.values())) + '\nwarnings.filterwarnings("ignore")\n\n'
    head += f"TARGET = {task.target!r}\nID = {task.id_column!r}\n"
    parts = [head] + [p for p in (defs, helpers) if p] + [flow]
    return "\n\n\n".join(p.rstrip("\n") for p in parts) + "\n"


# ---- the policy -------------------------------------------------------------------------------


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max())
    return z / z.sum()


def n_programs() -> int:
    """Number of programs per task: the product of the slot sizes."""
    return math.prod(len(v) for v in SLOTS.values())


class ComposerPolicy:
    """One contextual softmax per slot; a program is one variant per slot.

    Args:
        lr: step size of the policy-gradient ascent (see the module docstring for how it was chosen).
        temperature: divides the logits when sampling (1: the policy itself).
        seed: seeds the tiny initial noise on θ that breaks ties between variants.
    """

    SLOTS = SLOTS

    def __init__(self, lr: float = 10.0, temperature: float = 1.0, seed: int = 0) -> None:
        self.lr = float(lr)
        self.temperature = float(temperature)
        rng = np.random.default_rng(seed)
        self.theta = {s: rng.normal(0.0, 1e-3, (len(v), len(FEATURES))) for s, v in SLOTS.items()}

    @staticmethod
    def n_programs() -> int:
        return n_programs()

    def probs(self, context: Mapping, temperature: float = 1.0) -> dict[str, np.ndarray]:
        """π_s(·|x) of every slot."""
        phi = task_features(context)
        return {s: _softmax(th @ phi / temperature) for s, th in self.theta.items()}

    def _act(self, info: dict, pick) -> tuple[str, tuple[tuple[int, ...], np.ndarray]]:
        context = info.get("wm_context") or {}
        actions = tuple(int(pick(p)) for p in self.probs(context, self.temperature).values())
        choice = {s: SLOTS[s][a] for s, a in zip(SLOTS, actions)}
        return render(choice, context), (actions, task_features(context))

    def sample(
        self, obs, info: dict, rng: np.random.Generator
    ) -> tuple[str, tuple[tuple[int, ...], np.ndarray]]:
        """A program drawn from π(·|x) and its record ``(variant index per slot, φ(x))``."""
        return self._act(info, lambda p: rng.choice(len(p), p=p))

    def act_greedy(self, obs, info: dict, rng: np.random.Generator | None = None):
        """The most likely variant of every slot (for evaluation); same signature as ``sample``."""
        return self._act(info, np.argmax)

    def update(
        self,
        records: Sequence[Sequence[tuple[tuple[int, ...], np.ndarray]]],
        advantages: np.ndarray,
    ) -> dict:
        """Ascend ``(1/N) Σ_i A_i log π(a_i | x_i)``; returns the surrogate loss (its negative)."""
        grads = {s: np.zeros_like(th) for s, th in self.theta.items()}
        objective = 0.0
        n = max(1, len(records))
        for steps, adv in zip(records, advantages):
            for actions, phi in steps:
                for (s, th), a in zip(self.theta.items(), actions):
                    p = _softmax(th @ phi)
                    g = -p
                    g[a] += 1.0
                    grads[s] += adv * np.outer(g, phi) / n
                    objective += adv * np.log(p[a]) / n
        for s in self.theta:
            self.theta[s] += self.lr * grads[s]
        norm = float(np.sqrt(sum(float((g**2).sum()) for g in grads.values())))
        return {"loss": float(-objective), "grad_norm": norm}

    def state_dict(self) -> dict:
        return {
            "lr": self.lr,
            "temperature": self.temperature,
            "theta": {s: th.tolist() for s, th in self.theta.items()},
        }

    def load_state_dict(self, state: dict) -> None:
        self.lr = float(state["lr"])
        self.temperature = float(state["temperature"])
        self.theta = {s: np.asarray(state["theta"][s], dtype=np.float64) for s in SLOTS}
