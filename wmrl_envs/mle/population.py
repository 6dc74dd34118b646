"""Reference solutions that populate the offline leaderboards, from trivial to tuned ensembles.

The population runs in-process (it is our own trusted code) on a task's public train/test files
and is scored by the same grader as agents. Recipe and seed fully determine every entry: rows are
read in content order, so a build's secret ids and row order change nothing and
``wmrl build-leaderboards`` gives the same boards on every build. Two probes that are not on the
board, a default RandomForest and a default linear model, measure how hard each board is."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from wmrl_envs.mle.task import Task

_MAX_HGB_CATEGORIES = 250  # more distinct values: free text, dropped from the features


@dataclass
class Data:
    """A task's train/test frames and what the models need to know about them."""

    task: Task
    X: pd.DataFrame
    y: pd.Series  # class labels as text (classification) or floats (regression)
    X_test: pd.DataFrame
    test_ids: pd.Series
    classes: list[str]  # sorted class labels; [] for regression
    numeric: list[str]
    categorical: list[str]

    @property
    def classification(self) -> bool:
        return bool(self.classes)

    def subset(self, rows: np.ndarray) -> tuple[pd.DataFrame, pd.Series]:
        return self.X.iloc[rows], self.y.iloc[rows]


def _is_date(values: pd.Series) -> bool:
    sample = values.dropna().astype(str).head(200)
    return (
        len(sample) > 0
        and pd.to_datetime(sample, errors="coerce", format="ISO8601").notna().mean() > 0.9
    )


def _date_parts(values: pd.Series, name: str) -> pd.DataFrame:
    dates = pd.to_datetime(values, errors="coerce", format="ISO8601")
    return pd.DataFrame(
        {
            f"{name}_days": (dates - pd.Timestamp("1970-01-01")).dt.days,
            f"{name}_weekday": dates.dt.weekday,
            f"{name}_month": dates.dt.month,
            f"{name}_yearday": dates.dt.dayofyear,
        }
    )


def _engineer(
    train: pd.DataFrame, test: pd.DataFrame, features: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Dates become numeric parts; text columns with too many values to encode are dropped."""
    X, X_test = train[features].copy(), test[features].copy()
    for c in features:
        if pd.api.types.is_numeric_dtype(X[c]):
            continue
        if _is_date(X[c]):
            X = pd.concat([X.drop(columns=c), _date_parts(X[c], c)], axis=1)
            X_test = pd.concat([X_test.drop(columns=c), _date_parts(X_test[c], c)], axis=1)
        elif X[c].nunique() >= _MAX_HGB_CATEGORIES:
            X, X_test = X.drop(columns=c), X_test.drop(columns=c)
    return X, X_test


def _by_content(df: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """``df`` in an order set by each row's content, not by the build's secret ids."""
    content = pd.util.hash_pandas_object(df.drop(columns=id_column), index=False).to_numpy()
    return df.iloc[np.argsort(content, kind="stable")].reset_index(drop=True)


def load_data(task: Task) -> Data:
    """Read ``task``'s public files; the target is the spec's target column.

    Rows are put in content order, so every entry is the same on any build of the task.
    """
    train = _by_content(
        pd.read_csv(task.public_dir / "train.csv", low_memory=False), task.id_column
    )
    test = _by_content(pd.read_csv(task.public_dir / "test.csv", low_memory=False), task.id_column)
    X, X_test = _engineer(train, test, [c for c in test.columns if c != task.id_column])
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
    categorical = [c for c in X.columns if c not in numeric]
    for c in categorical:
        X[c], X_test[c] = X[c].astype(object), X_test[c].astype(object)
    y = train[task.target]
    classes: list[str] = []
    if task.task_type != "regression":
        y = y.astype(str)
        classes = sorted(y.unique())
    return Data(task, X, y, X_test, test[task.id_column], classes, numeric, categorical)


def _categorical_pipe(encoder: BaseEstimator) -> Pipeline:
    return make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"), encoder)


def tree_features(d: Data) -> ColumnTransformer:
    """Median-imputed numbers and ordinal-coded categories (numeric columns first)."""
    return ColumnTransformer(
        [
            ("num", SimpleImputer(strategy="median", keep_empty_features=True), d.numeric),
            (
                "cat",
                _categorical_pipe(
                    OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
                ),
                d.categorical,
            ),
        ]
    )


def linear_features(d: Data) -> ColumnTransformer:
    """Standardised numbers with missing-value flags and one-hot categories."""
    onehot = OneHotEncoder(
        handle_unknown="infrequent_if_exist", max_categories=25, sparse_output=False
    )
    return ColumnTransformer(
        [
            (
                "num",
                make_pipeline(
                    SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True),
                    StandardScaler(),
                ),
                d.numeric,
            ),
            ("cat", _categorical_pipe(onehot), d.categorical),
        ]
    )


def _hgb_categorical(d: Data) -> list[bool]:
    return [False] * len(d.numeric) + [
        d.X[c].nunique() < _MAX_HGB_CATEGORIES for c in d.categorical
    ]


def _hgb(d: Data, seed: int, **params) -> Pipeline:
    cls = HistGradientBoostingClassifier if d.classification else HistGradientBoostingRegressor
    if not d.classification and d.task.metric.name == "mae":
        params.setdefault("loss", "absolute_error")
    model = cls(categorical_features=_hgb_categorical(d), random_state=seed, **params)
    return Pipeline([("features", tree_features(d)), ("model", model)])


def _forest(d: Data, seed: int, extra: bool = False, **params) -> Pipeline:
    if d.classification:
        cls = ExtraTreesClassifier if extra else RandomForestClassifier
    else:
        cls = ExtraTreesRegressor if extra else RandomForestRegressor
    return Pipeline(
        [("features", tree_features(d)), ("model", cls(random_state=seed, n_jobs=1, **params))]
    )


def _tree(d: Data, seed: int, depth: int | None) -> Pipeline:
    cls = DecisionTreeClassifier if d.classification else DecisionTreeRegressor
    return Pipeline(
        [("features", tree_features(d)), ("model", cls(max_depth=depth, random_state=seed))]
    )


def _linear(d: Data, strength: float, numeric_only: bool = False) -> Pipeline:
    """Logistic regression with ``C=strength`` or ridge with ``alpha=1/strength``."""
    model = (
        LogisticRegression(C=strength, max_iter=2000)
        if d.classification
        else Ridge(alpha=1.0 / strength)
    )
    features = linear_features(d)
    if numeric_only:
        features.transformers = features.transformers[:1]
    return Pipeline([("features", features), ("model", model)])


def _knn(d: Data, k: int) -> Pipeline:
    k = min(k, len(d.y))  # a small split (the proxy's) has fewer rows than neighbours
    model = KNeighborsClassifier(k) if d.classification else KNeighborsRegressor(k)
    return Pipeline([("features", linear_features(d)), ("model", model)])


def _naive_bayes(d: Data) -> Pipeline:
    return Pipeline([("features", linear_features(d)), ("model", GaussianNB())])


def default_random_forest(d: Data, seed: int = 0) -> Pipeline:
    """Probe: ``RandomForest*()`` with its defaults on simple features."""
    return _forest(d, seed)


def default_linear(d: Data, seed: int = 0) -> Pipeline:
    """Probe: ``LogisticRegression()`` / ``LinearRegression()`` with defaults on one-hot features."""
    model = LogisticRegression(max_iter=2000) if d.classification else LinearRegression()
    return Pipeline([("features", linear_features(d)), ("model", model)])


# ---- fitting and scoring -------------------------------------------------------------------


def _log_target(d: Data) -> bool:
    return d.task.metric.name == "rmsle"


def fit_predict(
    d: Data, model: Pipeline, X: pd.DataFrame, y: pd.Series, X_new: pd.DataFrame
) -> np.ndarray:
    """Class probabilities (columns in ``d.classes`` order) or values for ``X_new``."""
    if d.classification:
        model.fit(X, y)
        out = np.zeros((len(X_new), len(d.classes)))
        proba = model.predict_proba(X_new)
        for j, c in enumerate(model.classes_):
            out[:, d.classes.index(str(c))] = proba[:, j]
        return out
    target = np.log1p(y.to_numpy(dtype=float)) if _log_target(d) else y.to_numpy(dtype=float)
    pred = model.fit(X, target).predict(X_new)
    return np.clip(np.expm1(pred), 0, None) if _log_target(d) else pred


def inner_score(d: Data, output: np.ndarray, y: pd.Series) -> float:
    """The task's metric, oriented so larger is better, on an inner validation fold."""
    metric = d.task.metric
    if not d.classification:
        return metric.signed(metric(y.to_numpy(dtype=float), output))
    idx = np.array([d.classes.index(v) for v in y])
    if metric.kind == "label":
        return metric.signed(metric(idx, output.argmax(axis=1)))
    return metric.signed(metric(idx, output[:, 1] if d.task.task_type == "binary" else output))


def submission(d: Data, output: np.ndarray) -> pd.DataFrame:
    """A submission frame in the task's format from probabilities or values."""
    sub = pd.DataFrame({d.task.id_column: d.test_ids.to_numpy()})
    cols = d.task.prediction_columns
    if not d.classification:
        sub[cols[0]] = output
    elif d.task.metric.kind == "label":
        sub[cols[0]] = np.asarray(d.classes, dtype=object)[output.argmax(axis=1)]
    elif d.task.task_type == "binary":
        sub[cols[0]] = output[:, d.classes.index("1")]
    else:
        for j, c in enumerate(d.classes):
            sub[c] = output[:, j]
    return sub


def grade_output(d: Data, output: np.ndarray) -> float:
    """Score an output exactly as an agent's submission.csv would be scored."""
    buf = io.StringIO()
    submission(d, output).to_csv(buf, index=False)
    return d.task.grade(buf.getvalue().encode())


# ---- the population ------------------------------------------------------------------------

HGB_GRID = {
    "learning_rate": (0.03, 0.06, 0.1),
    "max_leaf_nodes": (15, 31, 63),
    "min_samples_leaf": (10, 20, 40),
    "l2_regularization": (0.0, 0.1, 1.0),
    "max_features": (0.6, 0.8, 1.0),
}
RF_GRID = {"min_samples_leaf": (1, 3, 8), "max_features": ("sqrt", 0.5)}
N_HGB_TRIALS = 8


class Population:
    """Fits the reference population of one task; ``entries()`` yields ``(team, test output)``."""

    def __init__(self, d: Data, seed: int = 0) -> None:
        self.d, self.seed = d, seed
        stratify = d.y if d.classification and d.y.value_counts().min() >= 2 else None
        fit, val = train_test_split(
            np.arange(len(d.y)), test_size=0.2, random_state=seed, stratify=stratify
        )
        self.fit_rows, self.val_rows = fit, val
        self.rng = np.random.default_rng(seed)

    def _test(self, model: Pipeline) -> np.ndarray:
        return fit_predict(self.d, model, self.d.X, self.d.y, self.d.X_test)

    def _val(self, model: Pipeline) -> tuple[float, np.ndarray]:
        X, y = self.d.subset(self.fit_rows)
        Xv, yv = self.d.subset(self.val_rows)
        out = fit_predict(self.d, model, X, y, Xv)
        return inner_score(self.d, out, yv), out

    def _search(
        self, build: Callable[[dict], Pipeline], grid: list[dict]
    ) -> tuple[dict, np.ndarray]:
        """Best params on the inner validation fold and that model's validation output."""
        scored = [(self._val(build(p)), p) for p in grid]
        (_, out), params = max(scored, key=lambda s: s[0][0])
        return params, out

    def _trivial(self, kind: str) -> np.ndarray:
        d, n = self.d, len(self.d.X_test)
        if kind == "prior":
            if d.classification:
                prior = d.y.value_counts(normalize=True)
                return np.tile([prior.get(c, 0.0) for c in d.classes], (n, 1))
            y = d.y.to_numpy(dtype=float)
            return np.full(n, np.median(y) if d.task.metric.name == "mae" else y.mean())
        if d.classification:
            return self.rng.dirichlet(np.ones(len(d.classes)), size=n)
        return self.rng.choice(d.y.to_numpy(dtype=float), size=n)

    def entries(self) -> list[tuple[str, Callable[[], np.ndarray]]]:
        """Team names and thunks computing their test outputs, cheapest first."""
        d, s = self.d, self.seed
        entries: list[tuple[str, Callable[[], np.ndarray]]] = [
            ("sample-submission", lambda: self._trivial("prior")),
            ("random-guess-a", lambda: self._trivial("random")),
            ("random-guess-b", lambda: self._trivial("random")),
            ("one-split-stump", lambda: self._test(_tree(d, s, 1))),
            ("tree-depth-2", lambda: self._test(_tree(d, s, 2))),
            ("tree-depth-4", lambda: self._test(_tree(d, s, 4))),
            ("tree-depth-8", lambda: self._test(_tree(d, s, 8))),
            ("tree-unpruned", lambda: self._test(_tree(d, s, None))),
            ("linear-numeric-only", lambda: self._test(_linear(d, 1.0, numeric_only=True))),
        ]
        def linear(strength: float) -> Callable[[], np.ndarray]:
            return lambda: self._test(_linear(d, strength))

        for strength in (0.01, 0.1, 1.0, 10.0):
            entries.append((f"linear-c{strength:g}", linear(strength)))
        entries += [
            ("knn-5", lambda: self._test(_knn(d, 5))),
            ("knn-25", lambda: self._test(_knn(d, 25))),
            (
                "naive-bayes" if d.classification else "knn-100",
                lambda: self._test(_naive_bayes(d) if d.classification else _knn(d, 100)),
            ),
            ("forest-10", lambda: self._test(_forest(d, s, n_estimators=10))),
            ("forest-50", lambda: self._test(_forest(d, s, n_estimators=50))),
            ("forest-300", lambda: self._test(_forest(d, s, n_estimators=300))),
            ("extra-trees-300", lambda: self._test(_forest(d, s, extra=True, n_estimators=300))),
            ("gbm-default", lambda: self._test(_hgb(d, s))),
            ("gbm-shallow", lambda: self._test(_hgb(d, s, max_depth=3, max_iter=200))),
            ("gbm-slow-300", lambda: self._test(_hgb(d, s, learning_rate=0.05, max_iter=300))),
            ("gbm-feature-subset-a", lambda: self._test(_hgb(d, s, max_features=0.5))),
            ("gbm-feature-subset-b", lambda: self._test(_hgb(d, s + 1, max_features=0.5))),
        ]
        entries += self._tuned()
        return entries

    def _tuned(self) -> list[tuple[str, Callable[[], np.ndarray]]]:
        """Tuned forest and boosting (inner validation), three seeds, and three ensembles."""
        d, s = self.d, self.seed
        memo: dict[str, np.ndarray] = {}
        early = dict(
            max_iter=1000, early_stopping=True, validation_fraction=0.15, n_iter_no_change=30
        )
        grid = [dict(zip(HGB_GRID, v)) for v in product(*HGB_GRID.values())]
        trials = [grid[i] for i in self.rng.choice(len(grid), N_HGB_TRIALS, replace=False)]
        rf_grid = [dict(zip(RF_GRID, v)) for v in product(*RF_GRID.values())]

        def tune() -> None:
            if memo:
                return
            hgb, memo["val_hgb"] = self._search(lambda p: _hgb(d, s, **early, **p), trials)
            rf, memo["val_rf"] = self._search(
                lambda p: _forest(d, s, n_estimators=100, **p), rf_grid
            )
            lin, memo["val_lin"] = self._search(
                lambda p: _linear(d, **p), [{"strength": c} for c in (0.01, 0.1, 1.0, 10.0)]
            )
            for k in range(3):
                memo[f"hgb{k}"] = self._test(_hgb(d, s + k, **early, **hgb))
            memo["rf"] = self._test(_forest(d, s, n_estimators=300, **rf))
            memo["lin"] = self._test(_linear(d, **lin))

        def get(key: str) -> np.ndarray:
            tune()
            return memo[key]

        def weighted() -> np.ndarray:
            tune()
            parts = ("hgb", "rf", "lin")
            best, best_w = -np.inf, (1.0, 0.0, 0.0)
            yv = self.d.y.iloc[self.val_rows]
            for w in product(np.linspace(0, 1, 11), repeat=2):
                weights = (w[0], w[1] * (1 - w[0]), (1 - w[0]) * (1 - w[1]))
                out = sum(wi * memo[f"val_{p}"] for wi, p in zip(weights, parts))
                score = inner_score(self.d, out, yv)
                if score > best:
                    best, best_w = score, weights
            hgb = np.mean([memo[f"hgb{k}"] for k in range(3)], axis=0)
            return best_w[0] * hgb + best_w[1] * memo["rf"] + best_w[2] * memo["lin"]

        return [
            ("linear-tuned", lambda: get("lin")),
            ("forest-tuned", lambda: get("rf")),
            *[(f"gbm-tuned-seed{k}", lambda k=k: get(f"hgb{k}")) for k in range(3)],
            ("ensemble-gbm-seeds", lambda: np.mean([get(f"hgb{k}") for k in range(3)], axis=0)),
            (
                "ensemble-gbm-forest",
                lambda: (np.mean([get(f"hgb{k}") for k in range(3)], axis=0) + get("rf")) / 2,
            ),
            ("ensemble-weighted", weighted),
        ]
