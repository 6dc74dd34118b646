"""Every metric agrees with scikit-learn's on random data, ties and edge cases included."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from wmrl_envs.mle.metrics import METRICS, get_metric


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    return rng, n


@pytest.mark.parametrize("seed", range(25))
def test_classification_metrics_match_sklearn(seed):
    rng, n = _cases(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    score = np.round(rng.random(n), 1)  # coarse values: many ties
    assert get_metric("roc_auc")(y, score) == pytest.approx(skm.roc_auc_score(y, score), abs=1e-12)
    assert get_metric("log_loss")(y, score) == pytest.approx(skm.log_loss(y, score), abs=1e-12)
    k = int(rng.integers(3, 7))
    labels = np.array([f"class-{i}" for i in range(k)])
    t, p = (
        labels[rng.integers(0, k, n)],
        labels[rng.integers(0, k - 1, n)],
    )  # one class never predicted
    assert get_metric("accuracy")(t, p) == pytest.approx(skm.accuracy_score(t, p), abs=1e-12)
    assert get_metric("macro_f1")(t, p) == pytest.approx(
        skm.f1_score(t, p, average="macro", zero_division=0), abs=1e-12
    )
    proba = rng.dirichlet(np.ones(k), n)
    idx = rng.integers(0, k, n)
    idx[:k] = np.arange(k)
    assert get_metric("log_loss")(idx, proba) == pytest.approx(skm.log_loss(idx, proba), abs=1e-12)


def test_log_loss_clips_certain_mistakes_like_sklearn():
    y, p = np.array([0, 1, 1]), np.array([0.0, 1.0, 0.0])
    assert get_metric("log_loss")(y, p) == pytest.approx(skm.log_loss(y, p))


@pytest.mark.parametrize("seed", range(25))
def test_regression_metrics_match_sklearn(seed):
    rng, n = _cases(seed)
    t = rng.gamma(2.0, 10.0, n)
    p = np.clip(t + rng.normal(0, 5, n), 0, None)
    assert get_metric("rmse")(t, p) == pytest.approx(skm.root_mean_squared_error(t, p), rel=1e-12)
    assert get_metric("mse")(t, p) == pytest.approx(skm.mean_squared_error(t, p), rel=1e-12)
    assert get_metric("rmsle")(t, p) == pytest.approx(
        skm.root_mean_squared_log_error(t, p), rel=1e-12
    )
    assert get_metric("mae")(t, p) == pytest.approx(skm.mean_absolute_error(t, p), rel=1e-12)
    assert get_metric("r2")(t, p) == pytest.approx(skm.r2_score(t, p), rel=1e-12)


def test_directions_and_unknown_names():
    lower = {m.name for m in METRICS.values() if not m.higher_is_better}
    assert lower >= {"log_loss", "rmse", "rmsle", "mae", "mse"}
    assert not lower & {"roc_auc", "accuracy", "macro_f1", "r2", "qwk", "normalized_gini"}
    with pytest.raises(ValueError, match="known metrics: roc_auc"):
        get_metric("gini")
