"""Competition metrics, implemented in numpy (fast enough to grade inside ``step``).

Each :class:`Metric` states its direction and what a submission must hold (its ``kind``):

- ``proba``: class probabilities (binary: one column, P(target == 1); multiclass: one column
  per class),
- ``label``: one column of predicted class labels,
- ``value``: one numeric column per target,
- ``tokens``: one column of space-separated tokens (a ranked list of labels, a label set or a
  sequence),
- ``text``: one column of free text.

Input contract: ``metric(y_true, y_pred, *needs)`` takes numpy arrays with one row per answer
row, both in the same (id) order.

- One column is a 1-D array; several columns are an ``(n, k)`` array in the order the caller
  (e.g. the MLE-Dojo registry) names them.
- ``rmse``, ``mse``, ``mae``, ``rmsle`` pool every cell of an ``(n, k)`` array into one score;
  ``mcrmse`` and ``mcrmsle`` average per-column scores; ``mean_columnwise_*`` metrics score
  each column on its own and average.
- Classification answers are labels; probability metrics take class indices ``0..k-1``
  matching the prediction columns. ``log_loss`` also takes an ``(n, k)`` one-hot (or
  probability) answer matrix, ``kl_divergence`` an ``(n, k)`` matrix of counts.
- ``tokens`` cells are strings of space-separated tokens; a missing cell (None or NaN) holds
  none, and a non-string answer (e.g. the integer 7 or 7.0) is the single token ``"7"``.
  ``map_at_k`` and ``ndcg_at_k`` read the prediction as labels ranked best first and the
  answer as the set of relevant labels; a label repeated in a prediction counts once.
- Extra per-row inputs from the answers (``Metric.needs``: ``weights``, ``groups``,
  ``identities``) follow ``y_pred`` as arrays; parameters (``Metric.params``, e.g. ``k``,
  ``eps``) are set with :meth:`Metric.with_params`.

Scores that are undefined on the given answers (e.g. AUC with one class) raise ``ValueError``.
The basic metrics agree with scikit-learn's functions of the same name
(``tests/mle/test_metrics.py``), the others with independent oracles
(``tests/mle/test_new_metrics.py``).
"""

from __future__ import annotations

import bisect
import inspect
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from scipy.stats import rankdata

_EPS = np.finfo(np.float64).eps


def _floats(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def _columns(a: np.ndarray) -> np.ndarray:
    """``a`` as an ``(n, k)`` float array (a 1-D array is one column)."""
    a = _floats(a)
    return a[:, None] if a.ndim == 1 else a


def _proba_matrix(proba: np.ndarray) -> np.ndarray:
    """Class probabilities as (n, k); a 1-D array is P(class 1) of two classes."""
    proba = _floats(proba)
    return np.column_stack([1.0 - proba, proba]) if proba.ndim == 1 else proba


def _label(cell: object) -> str:
    """A cell as label text; integral floats lose their ``.0`` (7.0 -> "7")."""
    if isinstance(cell, (float, np.floating)) and float(cell).is_integer():
        return str(int(cell))
    return str(cell)


def _tokens(cell: object) -> list[str]:
    """The space-separated tokens of one cell (see the module docstring)."""
    if isinstance(cell, str):
        return cell.split()
    if cell is None or (isinstance(cell, (float, np.floating)) and np.isnan(cell)):
        return []
    return [_label(cell)]


def _confusion(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Confusion counts over the sorted union of labels (rows: answers)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels, idx = np.unique(np.concatenate([y_true, y_pred]), return_inverse=True)
    counts = np.zeros((labels.size, labels.size))
    np.add.at(counts, (idx[: y_true.size], idx[y_true.size :]), 1)
    return counts


def roc_auc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Area under the ROC curve for 0/1 labels (Mann-Whitney U with average ranks for ties)."""
    y_true = np.asarray(y_true).astype(bool)
    n_pos = int(y_true.sum())
    n_neg = y_true.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("ROC AUC needs both classes in the answers")
    ranks = rankdata(np.asarray(y_score, dtype=np.float64))
    return float((ranks[y_true].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def log_loss(
    y_true: np.ndarray,
    proba: np.ndarray,
    *,
    eps: float = _EPS,
    normalize: bool = False,
    one_hot: bool = False,
) -> float:
    """Mean negative log-likelihood.

    ``y_true`` holds class indices (n,) or an (n, k) one-hot/probability matrix; ``proba`` is
    (n, k) or, for two classes, (n,). Probabilities are clipped to ``[eps, 1 - eps]`` and, with
    ``normalize``, then rescaled to sum to 1 in every row. ``one_hot``: ``y_true`` is always one
    indicator column per ``proba`` column, a single column too (the loss is the sum of
    ``y * log p`` over the answer columns, as MLE-Dojo's one-hot classes compute it), never
    class indices with ``proba`` as P(class 1).
    """
    if one_hot:
        y_true, proba = _columns(y_true), _columns(proba)
    proba = np.clip(_proba_matrix(proba), eps, 1.0 - eps)
    if normalize:
        proba = proba / proba.sum(axis=1, keepdims=True)
    y_true = np.asarray(y_true)
    if y_true.ndim == 2:
        return float(-(_floats(y_true) * np.log(proba)).sum(axis=1).mean())
    idx = y_true.astype(np.int64)
    return float(-np.log(proba[np.arange(idx.size), idx]).mean())


def balanced_log_loss(y_true: np.ndarray, proba: np.ndarray, *, eps: float = 1e-15) -> float:
    """Log loss averaged within each class, then over the k classes (an absent class adds 0).

    ``y_true`` holds class indices; ``proba`` is (n, k) (or (n,) for P(class 1)), rescaled to sum
    to 1 per row and clipped to ``[eps, 1 - eps]``.
    """
    proba = _proba_matrix(proba)
    sums = proba.sum(axis=1, keepdims=True)
    proba = np.clip(proba / np.where(sums > 0, sums, 1.0), eps, 1.0 - eps)
    idx = np.asarray(y_true).astype(np.int64)
    losses = [
        -np.log(proba[idx == c, c]).mean() if (idx == c).any() else 0.0
        for c in range(proba.shape[1])
    ]
    return float(np.mean(losses))


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def top1_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Share of rows whose first predicted token is not the answer label."""
    first = [next(iter(_tokens(p)), None) for p in y_pred]
    return float(np.mean([f != _label(t) for t, f in zip(y_true, first)]))


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


def f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Binary F1 of the positive class 1 (0 when neither side holds it)."""
    t, p = np.asarray(y_true) == 1, np.asarray(y_pred) == 1
    denom = t.sum() + p.sum()
    return float(2 * np.sum(t & p) / denom) if denom else 0.0


def qwk(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Cohen's kappa with quadratic weights over the sorted union of labels (by label index)."""
    observed = _confusion(y_true, y_pred)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    idx = np.arange(observed.shape[0])
    weights = (idx[:, None] - idx[None, :]) ** 2
    denom = np.sum(weights * expected)
    if denom == 0:
        raise ValueError("quadratic weighted kappa needs at least two distinct labels")
    return float(1.0 - np.sum(weights * observed) / denom)


def mcc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Matthews correlation coefficient (multiclass form; 0 when undefined)."""
    c = _confusion(y_true, y_pred)
    t, p, n, correct = c.sum(axis=1), c.sum(axis=0), c.sum(), np.trace(c)
    denom = np.sqrt((n * n - p @ p) * (n * n - t @ t))
    return float((correct * n - t @ p) / denom) if denom else 0.0


def mse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    diff = _floats(y_true) - _floats(y_pred)
    return float(np.mean(diff**2))


def rmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.sqrt(mse(y_true, y_pred)))


def rmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """RMSE of ``log1p`` values; both sides must be non-negative."""
    return rmse(np.log1p(_floats(y_true)), np.log1p(_floats(y_pred)))


def mcrmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over columns of each column's RMSE."""
    diff = _columns(y_true) - _columns(y_pred)
    return float(np.sqrt(np.mean(diff**2, axis=0)).mean())


def mcrmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over columns of each column's RMSLE; both sides must be non-negative."""
    return mcrmse(np.log1p(_floats(y_true)), np.log1p(_floats(y_pred)))


def rmspe(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Root mean squared relative error over the rows whose answer is not 0."""
    y_true, y_pred = _floats(y_true), _floats(y_pred)
    keep = y_true != 0
    if not keep.any():
        raise ValueError("RMSPE needs answers that are not all 0")
    return float(np.sqrt(np.mean(((y_true[keep] - y_pred[keep]) / y_true[keep]) ** 2)))


def smape(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Symmetric mean absolute percentage error in percent (0..200); a 0/0 row scores 0."""
    y_true, y_pred = _floats(y_true), _floats(y_pred)
    denom = np.abs(y_true) + np.abs(y_pred)
    ratio = np.divide(2 * np.abs(y_pred - y_true), denom, out=np.zeros_like(denom), where=denom > 0)
    return float(100 * ratio.mean())


def mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    diff = _floats(y_true) - _floats(y_pred)
    return float(np.mean(np.abs(diff)))


def median_absolute_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.median(np.abs(_floats(y_true) - _floats(y_pred))))


def weighted_mae(
    y_true: np.ndarray, y_pred: np.ndarray, weights: np.ndarray, *, denominator: str = "weights"
) -> float:
    """Weighted absolute error summed, divided by the weight sum or (``"rows"``) the row count.

    ``weights`` is (n,) or (n, m); an (n, m) array's rows are summed into one weight per row.
    """
    if denominator not in ("weights", "rows"):
        raise ValueError(f"denominator must be 'weights' or 'rows', not {denominator!r}")
    w = _columns(weights).sum(axis=1)
    total = np.sum(w * np.abs(_floats(y_true) - _floats(y_pred)))
    return float(total / (w.sum() if denominator == "weights" else w.size))


def group_log_mae(y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray) -> float:
    """Mean over groups of log(max(MAE within the group, 1e-9))."""
    _, idx = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    err = np.bincount(idx, weights=np.abs(_floats(y_true) - _floats(y_pred)))
    group_mae = err / np.bincount(idx)
    return float(np.mean(np.log(np.maximum(group_mae, 1e-9))))


def r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    y_true = _floats(y_true)
    ss_tot = np.sum((y_true - y_true.mean()) ** 2)
    ss_res = np.sum((y_true - _floats(y_pred)) ** 2)
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return float(1.0 - ss_res / ss_tot)


def pearson(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Pearson correlation; raises when either side is constant."""
    a, b = _floats(y_true), _floats(y_pred)
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt((a @ a) * (b @ b))
    if denom == 0:
        raise ValueError("correlation is undefined for constant answers or predictions")
    return float(a @ b / denom)


def spearman(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Spearman rank correlation (Pearson of average ranks)."""
    return pearson(rankdata(_floats(y_true)), rankdata(_floats(y_pred)))


def mean_columnwise_spearman(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over columns of Spearman's rho; a column with a constant side scores 0."""
    t, p = _columns(y_true), _columns(y_pred)
    rhos = []
    for j in range(t.shape[1]):
        constant = np.ptp(t[:, j]) == 0 or np.ptp(p[:, j]) == 0
        rhos.append(0.0 if constant else spearman(t[:, j], p[:, j]))
    return float(np.mean(rhos))


def mean_rowwise_spearman(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of Spearman's rho between two space-separated number sequences."""
    rhos = []
    for i, (t, p) in enumerate(zip(y_true, y_pred)):
        a, b = [float(x) for x in _tokens(t)], [float(x) for x in _tokens(p)]
        if len(a) != len(b):
            raise ValueError(f"row {i}: {len(b)} predicted values for {len(a)} answers")
        rhos.append(spearman(np.array(a), np.array(b)))
    return float(np.mean(rhos))


def _gini(actual: np.ndarray, score: np.ndarray) -> float:
    """Kaggle's Gini of ``actual`` ordered by ``score`` (ties take their mean position)."""
    total = actual.sum()
    if total == 0:
        raise ValueError("the Gini coefficient needs answers that do not sum to 0")
    n = actual.size
    return float(actual @ rankdata(score) / (n * total) - (n + 1) / (2 * n))


def normalized_gini(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Gini of the predictions over the Gini of the answers themselves (2 AUC - 1 for 0/1)."""
    actual = _floats(y_true)
    best = _gini(actual, actual)
    if best == 0:
        raise ValueError("the normalized Gini needs answers that vary")
    return _gini(actual, _floats(y_pred)) / best


def mean_columnwise_auc(
    y_true: np.ndarray, y_score: np.ndarray, *, single_class_score: float | None = None
) -> float:
    """Mean over columns of ROC AUC; a column whose answers hold one class scores
    ``single_class_score`` (None: an error)."""
    t, s = _columns(y_true), _columns(y_score)
    scores = []
    for j in range(t.shape[1]):
        if np.unique(t[:, j]).size < 2:
            if single_class_score is None:
                raise ValueError(f"ROC AUC of column {j} needs both classes in the answers")
            scores.append(single_class_score)
        else:
            scores.append(roc_auc(t[:, j], s[:, j]))
    return float(np.mean(scores))


def _roc_points(y_true: np.ndarray, y_score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROC vertices ``(fpr, tpr)`` from (0, 0) to (1, 1), one per distinct score."""
    y = np.asarray(y_true).astype(bool)
    if y.all() or not y.any():
        raise ValueError("a ROC curve needs both classes in the answers")
    order = np.argsort(-_floats(y_score), kind="stable")
    score, y = _floats(y_score)[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(score)), y.size - 1]
    tps = np.cumsum(y)[last]
    fps = last + 1 - tps
    return np.r_[0.0, fps / fps[-1]], np.r_[0.0, tps / tps[-1]]


def tpr_weighted_auc(
    y_true: np.ndarray, y_score: np.ndarray, *, bands: Sequence[Sequence[float]]
) -> float:
    """Kaggle's weighted AUC: the ROC area within true-positive-rate bands, weighted and
    normalised to 1 for a perfect ranking (0 for a perfectly inverted one).

    ``bands`` lists ``(tpr_low, tpr_high, weight)``; the band's area is the integral over TPR
    of ``1 - FPR``, on the piecewise-linear ROC curve (exact).
    """
    fpr, tpr = _roc_points(y_true, y_score)
    rising = np.diff(tpr) > 0  # segments at constant TPR add no area
    t_start, t_end = tpr[:-1][rising], tpr[1:][rising]
    f_start = fpr[:-1][rising]
    slope = (fpr[1:][rising] - f_start) / (t_end - t_start)
    missed = best = 0.0
    for low, high, weight in bands:
        left, right = np.maximum(t_start, low), np.minimum(t_end, high)
        mean_fpr = f_start + slope * ((left + right) / 2 - t_start)
        missed += weight * np.sum(np.where(right > left, mean_fpr * (right - left), 0.0))
        best += weight * (high - low)
    return float(1.0 - missed / best)


def mean_columnwise_ap(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Mean over columns of average precision (tied scores share one threshold, as in
    scikit-learn); a column without positives scores 0."""
    t, s = _columns(y_true), _columns(y_score)
    aps = []
    for j in range(t.shape[1]):
        order = np.argsort(-s[:, j], kind="stable")
        score, y = s[order, j], t[order, j] > 0
        if not y.any():
            aps.append(0.0)
            continue
        last = np.r_[np.flatnonzero(np.diff(score)), y.size - 1]
        tps = np.cumsum(y)[last]
        recall_gain = np.diff(np.r_[0.0, tps / tps[-1]])
        aps.append(float(np.sum(recall_gain * tps / (last + 1))))
    return float(np.mean(aps))


def jigsaw_bias_auc(
    y_true: np.ndarray,
    y_score: np.ndarray,
    identities: np.ndarray,
    *,
    p: float = -5,
    w: float = 0.25,
) -> float:
    """Jigsaw's bias-weighted AUC: ``w`` x (overall AUC + the power-``p`` means over identities
    of subgroup, BPSN and BNSP AUCs).

    Answers >= 0.5 are toxic; ``identities`` (n, m) >= 0.5 marks membership (NaN: not a
    member). AUCs undefined on a subset are left out of their mean; an all-undefined mean is
    left out of the sum.
    """
    toxic = _floats(y_true) >= 0.5
    score = _floats(y_score)
    members = np.nan_to_num(_columns(identities), nan=0.0) >= 0.5

    def auc(mask: np.ndarray) -> float:
        sub = toxic[mask]
        return roc_auc(sub, score[mask]) if 0 < sub.sum() < sub.size else np.nan

    def power_mean(values: list[float]) -> float:
        v = np.array([x for x in values if not np.isnan(x)])
        return float(np.mean(v**p) ** (1 / p)) if v.size else np.nan

    groups = [members[:, j] for j in range(members.shape[1])]
    components = [
        power_mean([auc(g) for g in groups]),
        power_mean([auc((toxic & ~g) | (~toxic & g)) for g in groups]),
        power_mean([auc((~toxic & ~g) | (toxic & g)) for g in groups]),
    ]
    overall = auc(np.ones_like(toxic))
    total = (0.0 if np.isnan(overall) else overall) + sum(c for c in components if not np.isnan(c))
    return float(w * total)


def kl_divergence(y_true: np.ndarray, proba: np.ndarray, *, eps: float = 1e-15) -> float:
    """Mean KL(answers || predictions); answer rows (counts) are normalised to sum to 1 (an
    all-zero row adds 0), predictions clipped to ``[eps, 1]`` and not rescaled."""
    t = _columns(y_true)
    sums = t.sum(axis=1, keepdims=True)
    t = np.divide(t, sums, out=np.zeros_like(t), where=sums > 0)
    q = np.clip(_columns(proba), eps, 1.0)
    terms = t * np.log(np.where(t > 0, t, 1.0) / q)  # 0 where the answer share is 0
    return float(terms.sum(axis=1).mean())


def mean_angular_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean angle (radians) between directions given as (azimuth, zenith) columns."""
    (az_t, ze_t), (az_p, ze_p) = _columns(y_true).T, _columns(y_pred).T
    cos = np.sin(ze_t) * np.sin(ze_p) * np.cos(az_t - az_p) + np.cos(ze_t) * np.cos(ze_p)
    return float(np.mean(np.arccos(np.clip(cos, -1.0, 1.0))))


def trip_haversine_p50_p95(y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray) -> float:
    """Mean over groups (trips) of the mean of the 50th and 95th percentile haversine error
    (metres) of (latitude, longitude) degree columns."""
    (lat_t, lon_t), (lat_p, lon_p) = np.radians(_columns(y_true)).T, np.radians(_columns(y_pred)).T
    h = (
        np.sin((lat_p - lat_t) / 2) ** 2
        + np.cos(lat_t) * np.cos(lat_p) * np.sin((lon_p - lon_t) / 2) ** 2
    )
    dist = 2 * 6_371_000.0 * np.arcsin(np.sqrt(h))
    groups = np.asarray(groups).astype(str)
    per_trip = [np.percentile(dist[groups == g], [50, 95]).mean() for g in np.unique(groups)]
    return float(np.mean(per_trip))


def _average_precision_at_k(truth: object, predicted: object, k: int) -> float:
    relevant, ranked = set(_tokens(truth)), _tokens(predicted)
    if not relevant:
        return 0.0
    hits, total, seen = 0, 0.0, set()
    for i, label in enumerate(ranked[:k]):
        if label in relevant and label not in seen:
            hits += 1
            total += hits / (i + 1)
        seen.add(label)
    return total / min(len(relevant), k)


def map_at_k(y_true: np.ndarray, y_pred: np.ndarray, *, k: int) -> float:
    """Mean average precision of the first ``k`` predicted labels."""
    return float(np.mean([_average_precision_at_k(t, p, k) for t, p in zip(y_true, y_pred)]))


def _ndcg(truth: object, predicted: object, k: int) -> float:
    relevant, ranked = set(_tokens(truth)), _tokens(predicted)
    if not relevant:
        return 0.0
    seen: set[str] = set()
    gains = []
    for label in ranked[:k]:
        gains.append(label in relevant and label not in seen)
        seen.add(label)
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = float(np.dot(gains, discounts[: len(gains)]))
    return dcg / float(discounts[: min(len(relevant), k)].sum())


def ndcg_at_k(y_true: np.ndarray, y_pred: np.ndarray, *, k: int) -> float:
    """Mean normalised discounted cumulative gain (binary relevance) of the first ``k`` labels."""
    return float(np.mean([_ndcg(t, p, k) for t, p in zip(y_true, y_pred)]))


def samples_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of the F1 between answer and predicted token sets (both empty: 1)."""
    scores = []
    for t, p in zip(y_true, y_pred):
        a, b = set(_tokens(t)), set(_tokens(p))
        scores.append(1.0 if not a and not b else 2 * len(a & b) / (len(a) + len(b)))
    return float(np.mean(scores))


def _micro_f1_of_sets(pairs: Sequence[tuple[set, set]]) -> float:
    tp = sum(len(a & b) for a, b in pairs)
    wrong = sum(len(a ^ b) for a, b in pairs)  # false negatives + false positives
    return 1.0 if tp + wrong == 0 else 2 * tp / (2 * tp + wrong)


def multilabel_micro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """F1 of (row, token) pairs pooled over all rows."""
    return _micro_f1_of_sets([(set(_tokens(t)), set(_tokens(p))) for t, p in zip(y_true, y_pred)])


_SPAN = re.compile(r"(\d+)\s+(\d+)")


def _span_chars(cell: object) -> set[int]:
    """Character offsets covered by ``"start end"`` spans ("0 3;5 9", "['0 3', '5 9']", ...)."""
    spans = _SPAN.findall(cell) if isinstance(cell, str) else []
    return {i for start, end in spans for i in range(int(start), int(end))}


def span_micro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """F1 of (row, character offset) pairs covered by answer and predicted spans, pooled."""
    return _micro_f1_of_sets([(_span_chars(t), _span_chars(p)) for t, p in zip(y_true, y_pred)])


def jaccard(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean word-level Jaccard index of lower-cased texts (both empty: 1)."""
    scores = []
    for t, p in zip(y_true, y_pred):
        a, b = ({w.lower() for w in _tokens(x)} for x in (t, p))
        scores.append(1.0 if not a and not b else len(a & b) / len(a | b))
    return float(np.mean(scores))


def edit_distance(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Levenshtein distance (unit insert, delete, substitute) between two sequences.

    Common ends are stripped, then Hyyrö's bit-parallel algorithm runs in O(len(b)) integer
    operations on ``len(a)``-bit words.
    """
    lo, n = 0, min(len(a), len(b))
    while lo < n and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and a[len(a) - 1 - hi] == b[len(b) - 1 - hi]:
        hi += 1
    a, b = a[lo : len(a) - hi], b[lo : len(b) - hi]
    if not a or not b:
        return len(a) + len(b)
    masks: dict[Hashable, int] = {}
    for i, item in enumerate(a):
        masks[item] = masks.get(item, 0) | 1 << i
    full, top = (1 << len(a)) - 1, 1 << (len(a) - 1)
    pv, mv, dist = full, 0, len(a)
    for item in b:
        eq = masks.get(item, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & full
        mh = pv & xh
        dist += 1 if ph & top else -1 if mh & top else 0
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return dist


def _text(cell: object) -> str:
    """A cell as text; a missing cell (None or NaN) is empty."""
    return cell if isinstance(cell, str) else " ".join(_tokens(cell))


def levenshtein(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean character edit distance between answer and predicted texts."""
    return float(np.mean([edit_distance(_text(t), _text(p)) for t, p in zip(y_true, y_pred)]))


def token_error_rate(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Summed token edit distance over the total number of answer tokens (like a word error
    rate)."""
    pairs = [(_tokens(t), _tokens(p)) for t, p in zip(y_true, y_pred)]
    total = sum(len(t) for t, _ in pairs)
    if total == 0:
        raise ValueError("the token error rate needs answers with at least one token")
    return sum(edit_distance(t, p) for t, p in pairs) / total


def _inversions(ranks: list[int]) -> int:
    seen: list[int] = []
    count = 0
    for r in ranks:
        at = bisect.bisect(seen, r)
        count += len(seen) - at
        seen.insert(at, r)
    return count


def kendall_tau_order(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Kendall tau of predicted orders against answer orders (space-separated item ids),
    pooled: 1 - 4 x total inversions / total n(n-1). Each prediction must permute its answer."""
    inversions = pairs = 0
    for i, (t, p) in enumerate(zip(y_true, y_pred)):
        truth, pred = _tokens(t), _tokens(p)
        if sorted(truth) != sorted(pred):
            raise ValueError(f"row {i}: the predicted order is not a permutation of the answer's")
        position = {item: j for j, item in enumerate(truth)}
        inversions += _inversions([position[item] for item in pred])
        pairs += len(truth) * (len(truth) - 1)
    return 1.0 if pairs == 0 else 1.0 - 4 * inversions / pairs


@dataclass(frozen=True)
class Metric:
    """A named metric with its direction and the kind of prediction it scores.

    Keyword-only arguments of ``fn`` are its parameters (:attr:`params`); positional arguments
    after ``y_true`` and ``y_pred`` are extra per-row inputs from the answers (:attr:`needs`).
    """

    name: str
    fn: Callable[..., float]
    higher_is_better: bool
    kind: str  # "proba" | "label" | "value" | "tokens" | "text"
    title: str
    nonnegative: bool = False  # predictions must be >= 0 (RMSLE)

    def __call__(self, y_true: np.ndarray, y_pred: np.ndarray, *needs: np.ndarray) -> float:
        return self.fn(y_true, y_pred, *needs)

    def _arguments(self) -> list[inspect.Parameter]:
        return list(inspect.signature(self.fn).parameters.values())

    @property
    def params(self) -> tuple[str, ...]:
        """Parameters :meth:`with_params` accepts."""
        return tuple(p.name for p in self._arguments() if p.kind is p.KEYWORD_ONLY)

    @property
    def needs(self) -> tuple[str, ...]:
        """Extra per-row answer inputs passed after ``y_true`` and ``y_pred``."""
        names = [p.name for p in self._arguments() if p.kind is p.POSITIONAL_OR_KEYWORD]
        return tuple(names[2:])

    def with_params(self, **params: object) -> Metric:
        """This metric with parameters fixed; unknown or still-missing parameters are errors."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ValueError(
                f"metric {self.name} has no parameter(s) {unknown}; its parameters: "
                f"{list(self.params) or 'none'}"
            )
        metric = replace(self, fn=partial(self.fn, **params)) if params else self
        missing = [
            p.name for p in metric._arguments() if p.kind is p.KEYWORD_ONLY and p.default is p.empty
        ]
        if missing:
            raise ValueError(f"metric {self.name} needs parameter(s) {missing}")
        return metric

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
        Metric("balanced_log_loss", balanced_log_loss, False, "proba", "class-balanced log-loss"),
        Metric("kl_divergence", kl_divergence, False, "proba", "Kullback-Leibler divergence"),
        Metric(
            "mean_columnwise_auc", mean_columnwise_auc, True, "proba", "mean ROC AUC of columns"
        ),
        Metric("mean_columnwise_ap", mean_columnwise_ap, True, "proba", "mean AP of columns"),
        Metric("normalized_gini", normalized_gini, True, "value", "normalized Gini coefficient"),
        Metric("tpr_weighted_auc", tpr_weighted_auc, True, "proba", "TPR-band weighted ROC area"),
        Metric("jigsaw_bias_auc", jigsaw_bias_auc, True, "proba", "identity-bias weighted AUC"),
        Metric("f1", f1, True, "label", "F1 score of the positive class"),
        Metric("micro_f1", accuracy, True, "label", "micro-averaged F1 (accuracy)"),
        Metric("qwk", qwk, True, "label", "quadratic weighted kappa"),
        Metric("mcc", mcc, True, "label", "Matthews correlation coefficient"),
        Metric("top1_error", top1_error, False, "tokens", "top-1 error rate"),
        Metric("map_at_k", map_at_k, True, "tokens", "mean average precision at k"),
        Metric("ndcg_at_k", ndcg_at_k, True, "tokens", "normalized DCG at k"),
        Metric("samples_f1", samples_f1, True, "tokens", "mean F1 of label sets"),
        Metric(
            "multilabel_micro_f1", multilabel_micro_f1, True, "tokens", "micro F1 of label sets"
        ),
        Metric("kendall_tau_order", kendall_tau_order, True, "tokens", "Kendall tau of orders"),
        Metric("mean_rowwise_spearman", mean_rowwise_spearman, True, "tokens", "mean row Spearman"),
        Metric("token_error_rate", token_error_rate, False, "tokens", "token error rate"),
        Metric("jaccard", jaccard, True, "text", "mean word-level Jaccard index"),
        Metric("levenshtein", levenshtein, False, "text", "mean Levenshtein distance"),
        Metric("span_micro_f1", span_micro_f1, True, "text", "micro F1 of character spans"),
        Metric("mcrmse", mcrmse, False, "value", "mean column-wise RMSE"),
        Metric("mcrmsle", mcrmsle, False, "value", "mean column-wise RMSLE", True),
        Metric("median_absolute_error", median_absolute_error, False, "value", "median abs. error"),
        Metric("smape", smape, False, "value", "symmetric mean absolute percentage error"),
        Metric("rmspe", rmspe, False, "value", "root mean squared percentage error"),
        Metric("weighted_mae", weighted_mae, False, "value", "weighted mean absolute error"),
        Metric("group_log_mae", group_log_mae, False, "value", "mean log MAE over groups"),
        Metric("spearman", spearman, True, "value", "Spearman rank correlation"),
        Metric("pearson", pearson, True, "value", "Pearson correlation"),
        Metric(
            "mean_columnwise_spearman", mean_columnwise_spearman, True, "value", "mean Spearman"
        ),
        Metric("mean_angular_error", mean_angular_error, False, "value", "mean angular error"),
        Metric("trip_haversine_p50_p95", trip_haversine_p50_p95, False, "value", "trip p50/p95 m"),
    )
}


def get_metric(name: str) -> Metric:
    """The metric called ``name``; a ``ValueError`` lists the known ones otherwise."""
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}") from None
