"""The MLE-Dojo metrics agree with independent oracles: scikit-learn, scipy, or the definition."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm
from sklearn.preprocessing import MultiLabelBinarizer

from wmrl_envs.mle.metrics import edit_distance, get_metric

PROPERTY = settings(deadline=None, max_examples=60)  # cheap checks; CI machines are shared


def m(name: str, **params):
    return get_metric(name).with_params(**params)


def _rng(seed: int) -> tuple[np.random.Generator, int]:
    rng = np.random.default_rng(seed)
    return rng, int(rng.integers(8, 300))


# ---- classification ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(15))
def test_label_metrics_match_sklearn(seed):
    rng, n = _rng(seed)
    k = int(rng.integers(2, 7))
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
    kappa = skm.cohen_kappa_score(t, p, weights="quadratic")
    assert m("qwk")(t, p) == pytest.approx(kappa, abs=1e-12)
    assert m("mcc")(t, p) == pytest.approx(skm.matthews_corrcoef(t, p), abs=1e-12)
    assert m("micro_f1")(t, p) == pytest.approx(skm.f1_score(t, p, average="micro"), abs=1e-12)
    b_t, b_p = t % 2, p % 2
    assert m("f1")(b_t, b_p) == pytest.approx(skm.f1_score(b_t, b_p), abs=1e-12)


def test_qwk_uses_label_order_not_values_and_rejects_one_label():
    t, p = np.array([1, 5, 10, 10]), np.array([1, 10, 10, 5])
    assert m("qwk")(t, p) == pytest.approx(skm.cohen_kappa_score(t, p, weights="quadratic"))
    with pytest.raises(ValueError, match="two distinct labels"):
        m("qwk")(np.ones(4), np.ones(4))


@PROPERTY
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40))
def test_qwk_is_symmetric_and_at_most_one(pairs):
    t, p = np.array(pairs).T
    if np.unique(np.r_[t, p]).size < 2:
        return
    assert m("qwk")(t, p) == pytest.approx(m("qwk")(p, t), abs=1e-12)
    assert m("qwk")(t, p) <= 1 + 1e-12
    if np.unique(t).size > 1:
        assert m("qwk")(t, t) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(10))
def test_columnwise_auc_and_ap_match_sklearn_per_column(seed):
    rng, n = _rng(seed)
    y = rng.integers(0, 2, (n, 4))
    y[:2] = [[0] * 4, [1] * 4]
    s = np.round(rng.random((n, 4)), 1)  # ties
    aucs = [skm.roc_auc_score(y[:, j], s[:, j]) for j in range(4)]
    aps = [skm.average_precision_score(y[:, j], s[:, j]) for j in range(4)]
    assert m("mean_columnwise_auc")(y, s) == pytest.approx(np.mean(aucs), abs=1e-12)
    assert m("mean_columnwise_ap")(y, s) == pytest.approx(np.mean(aps), abs=1e-12)


def test_columnwise_auc_single_class_column():
    y = np.array([[0, 1], [1, 1], [0, 1]])
    s = np.array([[0.1, 0.2], [0.9, 0.3], [0.2, 0.4]])
    with pytest.raises(ValueError, match="column 1"):
        m("mean_columnwise_auc")(y, s)
    assert m("mean_columnwise_auc", single_class_score=0.5)(y, s) == pytest.approx(0.75)
    assert m("mean_columnwise_ap")(np.zeros((3, 1)), s[:, :1]) == 0.0


@pytest.mark.parametrize("seed", range(10))
def test_normalized_gini(seed):
    rng, n = _rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n), 1)
    assert m("normalized_gini")(y, s) == pytest.approx(2 * skm.roc_auc_score(y, s) - 1, abs=1e-12)
    # continuous answers, distinct scores: Kaggle's cumulative-share definition
    actual, pred = rng.gamma(2.0, 1.0, n), rng.random(n)

    def kaggle_gini(a, p):
        a = a[np.argsort(-p)]
        return (np.cumsum(a).sum() / a.sum() - (a.size + 1) / 2) / a.size

    expected = kaggle_gini(actual, pred) / kaggle_gini(actual, actual)
    assert m("normalized_gini")(actual, pred) == pytest.approx(expected, abs=1e-12)
    assert m("normalized_gini")(actual, actual) == pytest.approx(1.0)


def test_balanced_log_loss_formula():
    y = np.array([0, 0, 0, 1, 1])
    p1 = np.array([0.1, 0.2, 0.6, 0.7, 0.9])
    expected = (-np.log(1 - p1[:3]).mean() - np.log(p1[3:]).mean()) / 2
    assert m("balanced_log_loss")(y, p1) == pytest.approx(expected)
    unnormalised = np.column_stack([1 - p1, p1]) * 3.0  # rows are rescaled to sum to 1
    assert m("balanced_log_loss")(y, unnormalised) == pytest.approx(expected)
    assert m("balanced_log_loss")(y, y.astype(float)) == pytest.approx(-np.log(1 - 1e-15))


@pytest.mark.parametrize("seed", range(8))
def test_log_loss_one_hot_answers_and_renormalising(seed):
    rng, n = _rng(seed)
    idx = rng.integers(0, 4, n)
    idx[:4] = np.arange(4)
    onehot = np.eye(4)[idx]
    raw = rng.random((n, 4)) + 0.05
    proba = raw / raw.sum(axis=1, keepdims=True)
    assert m("log_loss")(onehot, proba) == pytest.approx(skm.log_loss(idx, proba), abs=1e-12)
    got = m("log_loss", eps=1e-15, normalize=True)(onehot, raw / 2)  # unnormalised rows
    assert got == pytest.approx(skm.log_loss(idx, proba), abs=1e-12)


def test_log_loss_one_hot_reads_a_single_column_as_an_indicator():
    """``one_hot``: one answer column is one class's indicator, not a binary label with its
    complement, so a row whose indicator is 0 costs nothing (the sum of ``y * log p``)."""
    y, p = np.array([1, 0, 1, 0]), np.array([0.8, 0.3, 0.5, 0.9])
    assert m("log_loss", one_hot=True)(y, p) == pytest.approx(-(np.log(0.8) + np.log(0.5)) / 4)
    assert m("log_loss", one_hot=True, normalize=True)(y, p) == pytest.approx(0.0)
    onehot = np.eye(3)[[0, 2, 1]]
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])
    assert m("log_loss", one_hot=True)(onehot, proba) == pytest.approx(m("log_loss")(onehot, proba))


@pytest.mark.parametrize("seed", range(8))
def test_kl_divergence_matches_scipy_entropy(seed):
    rng, n = _rng(seed)
    votes = rng.integers(0, 4, (n, 6)).astype(float)
    votes[:, 0] += 1
    pred = rng.dirichlet(np.ones(6), n)
    expected = np.mean([stats.entropy(v, q) for v, q in zip(votes, pred)])
    assert m("kl_divergence")(votes, pred) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_jigsaw_bias_auc_from_its_definition(seed):
    rng = np.random.default_rng(seed)
    n = 400
    tox = rng.random(n)
    ident = np.where(rng.random((n, 3)) < 0.3, rng.random((n, 3)), np.nan)
    score = tox + rng.normal(0, 0.3, n)
    y = tox >= 0.5
    members = np.nan_to_num(ident) >= 0.5

    def pm(v):
        return np.mean(np.power(v, -5)) ** (1 / -5)

    sub = [skm.roc_auc_score(y[g], score[g]) for g in members.T]
    bpsn = [
        skm.roc_auc_score(y[(y & ~g) | (~y & g)], score[(y & ~g) | (~y & g)]) for g in members.T
    ]
    bnsp = [
        skm.roc_auc_score(y[(~y & ~g) | (y & g)], score[(~y & ~g) | (y & g)]) for g in members.T
    ]
    expected = 0.25 * (skm.roc_auc_score(y, score) + pm(sub) + pm(bpsn) + pm(bnsp))
    got = m("jigsaw_bias_auc", p=-5, w=0.25)(tox, score, ident)
    assert got == pytest.approx(expected, abs=1e-12)


def test_tpr_weighted_auc_against_a_fine_grid():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2000)
    s = y + rng.normal(0, 1.0, y.size)
    bands = [[0.0, 0.2, 2.0], [0.2, 0.4, 1.5], [0.4, 0.6, 1.0], [0.6, 0.8, 0.5]]
    fpr, tpr, _ = skm.roc_curve(y, s, drop_intermediate=False)
    grid = np.linspace(0, 1, 200_001)
    under = 1 - np.interp(grid, tpr, fpr)  # width of the ROC area at each TPR
    area = sum(
        w * np.trapezoid(under[(grid >= a) & (grid <= b)], grid[(grid >= a) & (grid <= b)])
        for a, b, w in bands
    )
    metric = m("tpr_weighted_auc", bands=bands)
    assert metric(y, s) == pytest.approx(area / sum(w * (b - a) for a, b, w in bands), abs=1e-4)
    assert metric(y, y.astype(float)) == pytest.approx(1.0)
    assert metric(y, -y.astype(float)) == pytest.approx(0.0)
    assert m("tpr_weighted_auc", bands=[[0, 1, 1]])(y, s) == pytest.approx(skm.roc_auc_score(y, s))


# ---- regression and correlation ----------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_regression_metrics_match_sklearn(seed):
    rng, n = _rng(seed)
    t = rng.gamma(2.0, 10.0, (n, 3))
    p = np.clip(t + rng.normal(0, 5, (n, 3)), 0, None)
    rmse_cols = skm.root_mean_squared_error(t, p, multioutput="raw_values").mean()
    rmsle_cols = skm.root_mean_squared_log_error(t, p, multioutput="raw_values").mean()
    assert m("mcrmse")(t, p) == pytest.approx(rmse_cols, rel=1e-12)
    assert m("mcrmsle")(t, p) == pytest.approx(rmsle_cols, rel=1e-12)
    assert m("rmse")(t, p) == pytest.approx(np.sqrt(np.mean((t - p) ** 2)), rel=1e-12)  # pooled
    a, b = t[:, 0], p[:, 0]
    assert m("median_absolute_error")(a, b) == pytest.approx(skm.median_absolute_error(a, b))
    assert m("rmspe")(a, b) == pytest.approx(np.sqrt(np.mean(((a - b) / a) ** 2)), rel=1e-12)
    w = rng.random(n)
    assert m("weighted_mae")(a, b, w) == pytest.approx(np.average(np.abs(a - b), weights=w))
    rows = m("weighted_mae", denominator="rows")(a, b, np.column_stack([w, 2 * w]))
    assert rows == pytest.approx(np.mean(3 * w * np.abs(a - b)))


@pytest.mark.parametrize("seed", range(10))
def test_correlations_match_scipy(seed):
    rng, n = _rng(seed)
    t = np.round(rng.normal(size=(n, 3)), 1)  # ties
    p = t + rng.normal(size=(n, 3))
    assert m("spearman")(t[:, 0], p[:, 0]) == pytest.approx(stats.spearmanr(t[:, 0], p[:, 0])[0])
    assert m("pearson")(t[:, 0], p[:, 0]) == pytest.approx(stats.pearsonr(t[:, 0], p[:, 0])[0])
    columns = [stats.spearmanr(t[:, j], p[:, j])[0] for j in range(3)]
    assert m("mean_columnwise_spearman")(t, p) == pytest.approx(np.mean(columns))
    p[:, 2] = 1.0  # a constant column scores 0
    assert m("mean_columnwise_spearman")(t, p) == pytest.approx(np.mean(columns[:2] + [0.0]))
    with pytest.raises(ValueError, match="constant"):
        m("pearson")(t[:, 0], p[:, 2])


def test_smape_formula_and_zero_rows():
    t, p = np.array([100.0, 0.0, 50.0, 0.0]), np.array([110.0, 0.0, 25.0, 3.0])
    expected = 100 * np.mean([20 / 210, 0.0, 50 / 75, 2.0])
    assert m("smape")(t, p) == pytest.approx(expected)


@PROPERTY
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=1, max_size=30))
def test_smape_is_symmetric_and_bounded(pairs):
    t, p = np.array(pairs).T
    assert 0 <= m("smape")(t, p) <= 200 + 1e-9
    assert m("smape")(t, p) == pytest.approx(m("smape")(p, t))


def test_group_log_mae_matches_pandas():
    t = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    p = np.array([1.5, 2.0, 2.0, 4.0, 5.0])
    g = np.array(["a", "a", "b", "c", "c"])
    per_group = pd.Series(np.abs(t - p)).groupby(g).mean().clip(lower=1e-9)
    assert m("group_log_mae")(t, p, g) == pytest.approx(np.log(per_group).mean())


def test_angles_and_distances_from_unit_vectors():
    rng = np.random.default_rng(0)
    az, ze = rng.uniform(0, 2 * np.pi, (2, 50)), rng.uniform(0, np.pi, (2, 50))
    unit = np.stack([np.sin(ze) * np.cos(az), np.sin(ze) * np.sin(az), np.cos(ze)], axis=-1)
    angles = np.arccos(np.clip((unit[0] * unit[1]).sum(axis=1), -1, 1))
    got = m("mean_angular_error")(np.column_stack([az[0], ze[0]]), np.column_stack([az[1], ze[1]]))
    assert got == pytest.approx(angles.mean())
    lat, lon = rng.uniform(-1, 1, (2, 50)) + 37, rng.uniform(-1, 1, (2, 50)) - 122
    trips = np.repeat(["t1", "t2"], 25)
    phi, lam = np.radians(lat), np.radians(lon)
    xyz = np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], axis=-1)
    dist = 6_371_000 * np.arccos(np.clip((xyz[0] * xyz[1]).sum(axis=1), -1, 1))
    per_trip = (
        pd.Series(dist).groupby(trips).apply(lambda d: (d.quantile(0.5) + d.quantile(0.95)) / 2)
    )
    got = m("trip_haversine_p50_p95")(
        np.column_stack([lat[0], lon[0]]), np.column_stack([lat[1], lon[1]]), trips
    )
    assert got == pytest.approx(per_trip.mean(), rel=1e-6)


# ---- rankings, sets and text -------------------------------------------------------------


def _apk(actual: list, predicted: list, k: int) -> float:
    """Average precision at k, written from its definition."""
    predicted = predicted[:k]
    score = sum(
        np.mean([q in actual for q in predicted[: i + 1]])
        for i, p in enumerate(predicted)
        if p in actual and p not in predicted[:i]
    )
    return score / min(len(actual), k) if actual else 0.0


def test_map_at_k_small_cases():
    t = np.array(["a", "b", "c", 7])
    p = np.array(["a b c", "c b a", "x y z", "7.0 7"])
    assert m("map_at_k", k=3)(t, p) == pytest.approx((1 + 1 / 2 + 0 + 1 / 2) / 4)
    sets = np.array(["a b", "a b c"])
    ranked = np.array(["b x a", "a a b d c"])  # a repeated label counts once
    expected = np.mean([_apk(["a", "b"], ["b", "x", "a"], 12), (1 + 2 / 3 + 3 / 5) / 3])
    assert m("map_at_k", k=12)(sets, ranked) == pytest.approx(expected)
    assert m("map_at_k", k=1)(np.array(["a"]), np.array(["b a"])) == 0.0


labels = st.sampled_from(list("abcdefg"))


@PROPERTY
@given(
    st.lists(
        st.tuples(
            st.lists(labels, min_size=1, max_size=3, unique=True),
            st.lists(labels, max_size=6, unique=True),
        ),
        min_size=1,
        max_size=10,
    ),
    st.integers(1, 6),
)
def test_map_at_k_matches_the_definition_and_is_bounded(rows, k):
    t = np.array([" ".join(a) for a, _ in rows], dtype=object)
    p = np.array([" ".join(b) for _, b in rows], dtype=object)
    expected = np.mean([_apk(a, b, k) for a, b in rows])
    assert m("map_at_k", k=k)(t, p) == pytest.approx(expected)
    assert 0 <= expected <= 1
    assert m("map_at_k", k=k)(t, t) == pytest.approx(1.0)


def test_ndcg_at_k_matches_sklearn():
    classes = list("abcdefgh")
    t = np.array(["c", "a", "h"])
    p = np.array(["a b c d e", "a b c d e", "b c d e f"])  # five labels: no ties in the top 5
    relevance = np.array([[c == x for c in classes] for x in t], dtype=float)
    scores = np.array(
        [[10 - r.split().index(c) if c in r else -i for i, c in enumerate(classes)] for r in p]
    )
    expected = skm.ndcg_score(relevance, scores, k=5)
    assert m("ndcg_at_k", k=5)(t, p) == pytest.approx(expected)
    assert expected == pytest.approx((1 / np.log2(4) + 1 + 0) / 3)


def test_top1_error():
    t = np.array([3, 4, 5, 6])
    p = np.array(["3 4", "5 4", 5.0, np.nan], dtype=object)
    assert m("top1_error")(t, p) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(5))
def test_set_f1_metrics_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    vocab = list("abcdef")
    truth = [set(rng.choice(vocab, rng.integers(1, 4), replace=False)) for _ in range(30)]
    pred = [set(rng.choice(vocab, rng.integers(1, 4), replace=False)) for _ in range(30)]
    mlb = MultiLabelBinarizer(classes=vocab).fit([vocab])
    yt, yp = mlb.transform(truth), mlb.transform(pred)
    t = np.array([" ".join(s) for s in truth])
    p = np.array([" ".join(s) for s in pred])
    assert m("samples_f1")(t, p) == pytest.approx(skm.f1_score(yt, yp, average="samples"))
    assert m("multilabel_micro_f1")(t, p) == pytest.approx(skm.f1_score(yt, yp, average="micro"))
    assert m("samples_f1")(np.array([""]), np.array([np.nan], dtype=object)) == 1.0


def test_span_micro_f1_reads_every_span_format():
    t = np.array(["0 4;10 12", "['3 5']", "[]"], dtype=object)
    p = np.array(["['0 2', '10 12']", "3 5", np.nan], dtype=object)
    tp, fn = 2 + 2 + 2, 2  # chars {0,1},{10,11},{3,4} found; {2,3} missed
    assert m("span_micro_f1")(t, p) == pytest.approx(2 * tp / (2 * tp + fn))


def test_jaccard_examples():
    t = np.array(["The cat sat", "", "a b"], dtype=object)
    p = np.array(["the CAT", "", "c"], dtype=object)
    assert m("jaccard")(t, p) == pytest.approx((2 / 3 + 1 + 0) / 3)


@PROPERTY
@given(st.text(alphabet="ab c", max_size=12), st.text(alphabet="ab c", max_size=12))
def test_jaccard_is_symmetric_and_bounded(a, b):
    t, p = np.array([a], dtype=object), np.array([b], dtype=object)
    assert m("jaccard")(t, p) == pytest.approx(m("jaccard")(p, t))
    assert 0 <= m("jaccard")(t, p) <= 1


def _dp_distance(a, b) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


@PROPERTY
@given(st.text(alphabet="abcd", max_size=80), st.text(alphabet="abcd", max_size=80))
def test_edit_distance_matches_dynamic_programming(a, b):
    assert edit_distance(a, b) == _dp_distance(a, b)
    assert edit_distance(list(a), list(b)) == edit_distance(b, a)


def test_levenshtein_and_token_error_rate():
    t = np.array(["kitten", "flaw", np.nan], dtype=object)
    p = np.array(["sitting", "lawn", "ab"], dtype=object)
    assert m("levenshtein")(t, p) == pytest.approx((3 + 2 + 2) / 3)
    t = np.array(["1 2 3 4", "5 6"])
    p = np.array(["1 3 4", "5 6 7"])
    assert m("token_error_rate")(t, p) == pytest.approx(2 / 6)


@pytest.mark.parametrize("seed", range(5))
def test_order_metrics_match_scipy(seed):
    rng = np.random.default_rng(seed)
    items = [f"c{i}" for i in range(int(rng.integers(2, 40)))]
    shuffled = list(rng.permutation(items))
    tau = stats.kendalltau(range(len(items)), [items.index(c) for c in shuffled])[0]
    got = m("kendall_tau_order")(np.array([" ".join(items)]), np.array([" ".join(shuffled)]))
    assert got == pytest.approx(tau)
    with pytest.raises(ValueError, match="permutation"):
        m("kendall_tau_order")(np.array(["a b"]), np.array(["a c"]))
    days = [rng.permutation(5) + 1 for _ in range(6)]
    preds = [rng.permutation(5) + 1 for _ in range(6)]
    expected = np.mean([stats.spearmanr(d, q)[0] for d, q in zip(days, preds)])
    t = np.array([" ".join(map(str, d)) for d in days])
    p = np.array([" ".join(map(str, q)) for q in preds])
    assert m("mean_rowwise_spearman")(t, p) == pytest.approx(expected)


# ---- parameters ---------------------------------------------------------------------------


def test_params_and_needs_are_read_from_the_signature():
    assert get_metric("map_at_k").params == ("k",)
    assert get_metric("weighted_mae").needs == ("weights",)
    assert get_metric("jigsaw_bias_auc").needs == ("identities",)
    assert get_metric("rmse").params == () and get_metric("rmse").with_params() is get_metric(
        "rmse"
    )
    with pytest.raises(ValueError, match="needs parameter"):
        get_metric("ndcg_at_k").with_params()
    with pytest.raises(ValueError, match="no parameter"):
        get_metric("rmse").with_params(k=3)
