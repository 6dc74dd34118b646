"""Competition metrics, implemented in numpy (fast enough to grade inside ``step``).

Each :class:`Metric` states its direction and what a submission must hold:

- ``proba``: class probabilities (binary: one column, P(target == 1); multiclass: one column
  per class),
- ``label``: one column of predicted class labels,
- ``value``: one numeric column per target.

Values agree with scikit-learn's functions of the same name (``tests/mle/test_metrics.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

_EPS = np.finfo(np.float64).eps


def roc_auc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Area under the ROC curve for 0/1 labels (Mann-Whitney U with average ranks for ties)."""
    y_true = np.asarray(y_true).astype(bool)
    n_pos = int(y_true.sum())
    n_neg = y_true.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("ROC AUC needs both classes in the answers")
    ranks = rankdata(np.asarray(y_score, dtype=np.float64))
    return float((ranks[y_true].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def log_loss(y_true: np.ndarray, proba: np.ndarray) -> float:
    """Mean negative log-likelihood; ``y_true`` holds class indices, ``proba`` is (n, k) or (n,)."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    proba = np.clip(proba, _EPS, 1.0 - _EPS)
    idx = np.asarray(y_true, dtype=np.int64)
    return float(-np.log(proba[np.arange(idx.size), idx]).mean())


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Unweighted mean F1 over every label seen in the answers or the predictions."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.union1d(y_true, y_pred)
    scores = []
    for label in labels:
        t, p = y_true == label, y_pred == label
        tp = np.sum(t & p)
        scores.append(2 * tp / (2 * tp + np.sum(~t & p) + np.sum(t & ~p)))
    return float(np.mean(scores))


def mse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    diff = np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64)
    return float(np.mean(diff**2))


def rmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.sqrt(mse(y_true, y_pred)))


def rmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """RMSE of ``log1p`` values; both sides must be non-negative."""
    return rmse(
        np.log1p(np.asarray(y_true, dtype=np.float64)),
        np.log1p(np.asarray(y_pred, dtype=np.float64)),
    )


def mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    diff = np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64)
    return float(np.mean(np.abs(diff)))


def r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    y_true = np.asarray(y_true, dtype=np.float64)
    ss_tot = np.sum((y_true - y_true.mean()) ** 2)
    ss_res = np.sum((y_true - np.asarray(y_pred, dtype=np.float64)) ** 2)
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return float(1.0 - ss_res / ss_tot)


@dataclass(frozen=True)
class Metric:
    """A named metric with its direction and the kind of prediction it scores."""

    name: str
    fn: Callable[[np.ndarray, np.ndarray], float]
    higher_is_better: bool
    kind: str  # "proba" | "label" | "value"
    title: str
    nonnegative: bool = False  # predictions must be >= 0 (RMSLE)

    def __call__(self, y_true: np.ndarray, y_pred: np.ndarray) -> float:
        return self.fn(y_true, y_pred)

    def better(self, a: float, b: float) -> bool:
        """Whether score ``a`` is strictly better than ``b``."""
        return a > b if self.higher_is_better else a < b

    def signed(self, score: float) -> float:
        """The score oriented so that larger is always better."""
        return score if self.higher_is_better else -score


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("roc_auc", roc_auc, True, "proba", "area under the ROC curve"),
        Metric("log_loss", log_loss, False, "proba", "log-loss (cross-entropy)"),
        Metric("accuracy", accuracy, True, "label", "classification accuracy"),
        Metric("macro_f1", macro_f1, True, "label", "macro-averaged F1 score"),
        Metric("rmse", rmse, False, "value", "root mean squared error"),
        Metric("rmsle", rmsle, False, "value", "root mean squared logarithmic error", True),
        Metric("mae", mae, False, "value", "mean absolute error"),
        Metric("mse", mse, False, "value", "mean squared error"),
        Metric("r2", r2, True, "value", "coefficient of determination (R^2)"),
    )
}


def get_metric(name: str) -> Metric:
    """The metric called ``name``; a ``ValueError`` lists the known ones otherwise."""
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}") from None
