import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.isotonic import IsotonicRegression

from wmrl_envs.mixing import OnlineDebiaser, pav_fit, sklearn_fit

unit = st.floats(0, 1, allow_nan=False)


@st.composite
def weighted_pairs(draw):
    n = draw(st.integers(2, 60))
    # Few distinct x values force ties, which both fits must pool the same way.
    x = draw(arrays(np.float64, n, elements=st.sampled_from(np.linspace(0, 1, draw(st.integers(2, 12))))))
    y = draw(arrays(np.float64, n, elements=unit))
    w = draw(arrays(np.float64, n, elements=st.floats(0.1, 5)))
    return x, y, w


@settings(max_examples=200, deadline=None)
@given(weighted_pairs())
def test_numpy_pav_equals_sklearn(pairs):
    x, y, w = pairs
    grid = np.linspace(-0.2, 1.2, 57)
    ref = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y, sample_weight=w)
    ours = np.interp(grid, *pav_fit(x, y, w))
    np.testing.assert_allclose(ours, ref.predict(grid), atol=1e-9, rtol=0)
    np.testing.assert_allclose(np.interp(grid, *sklearn_fit(x, y, w)), ref.predict(grid), atol=1e-12, rtol=0)


@settings(max_examples=100, deadline=None)
@given(weighted_pairs())
def test_fit_is_monotone(pairs):
    kx, ky = pav_fit(*pairs)
    assert np.all(np.diff(kx) > 0)
    assert np.all(np.diff(ky) >= -1e-12)


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.integers(2, 50), elements=unit, unique=True))
def test_monotone_data_is_left_unchanged(x):
    x = np.sort(x)
    y = x**2  # increasing in x
    kx, ky = pav_fit(x, y)
    np.testing.assert_allclose(kx, x)
    np.testing.assert_allclose(ky, y, atol=1e-12)


def test_debiaser_is_identity_until_enough_distinct_pairs():
    d = OnlineDebiaser(min_pairs=16)
    d.update([0.5] * 20, [1.0] * 20)  # enough pairs, one distinct score
    assert not d.active
    np.testing.assert_array_equal(d.transform([0.1, 0.9]), [0.1, 0.9])
    d.update(np.linspace(0, 1, 10), np.linspace(0, 1, 10))
    assert d.active


def test_debiaser_clips_to_the_fitted_range():
    d = OnlineDebiaser(min_pairs=2)
    d.update([0.2, 0.4, 0.6], [0.1, 0.5, 0.7])
    np.testing.assert_allclose(d.transform([0.0, 0.3, 1.0]), [0.1, 0.3, 0.7])


def test_debiaser_keeps_only_the_window():
    d = OnlineDebiaser(window=10, min_pairs=2)
    d.update(np.linspace(0, 1, 30), np.ones(30))
    d.update(np.linspace(0, 1, 5), np.zeros(5))
    assert d.n_pairs == 10
    state = d.state_dict()
    np.testing.assert_allclose(state["real_scores"], [1] * 5 + [0] * 5)


def test_debiaser_numpy_backend_matches_sklearn_backend():
    rng = np.random.default_rng(3)
    s, y = rng.random(500), rng.random(500)
    a, b = OnlineDebiaser(backend="sklearn"), OnlineDebiaser(backend="numpy")
    a.update(s, y)
    b.update(s, y)
    grid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(a.transform(grid), b.transform(grid), atol=1e-9)


def test_debiaser_removes_90_percent_of_a_monotone_bias():
    rng = np.random.default_rng(0)
    wm = lambda mu: 0.2 + 0.6 * mu**2  # noqa: E731 - monotone, biased world model
    d = OnlineDebiaser()
    for _ in range(40):  # 40 batches of 64 anchor samples with Bernoulli real outcomes
        mu = rng.random(64)
        d.update(wm(mu), (rng.random(64) < mu).astype(float))
    mu = rng.random(20_000)  # fresh, out of sample
    bias_raw = abs(np.mean(mu - wm(mu)))
    bias_debiased = abs(np.mean(mu - d.transform(wm(mu))))
    assert bias_raw > 0.09
    assert bias_debiased <= 0.1 * bias_raw
    mae_raw = np.mean(np.abs(mu - wm(mu)))
    assert np.mean(np.abs(mu - d.transform(wm(mu)))) < 0.35 * mae_raw


@pytest.mark.parametrize(
    "s, y, match",
    [
        ([0.1, float("nan")], [0.1, 0.2], r"wm_scores\[1\]"),
        ([0.1, 0.2], [0.1, float("inf")], r"real_scores\[1\]"),
        ([0.1, 0.2], [0.1], "differ in length"),
        ([], [], "wm_scores is empty"),
    ],
)
def test_debiaser_rejects_bad_input(s, y, match):
    with pytest.raises(ValueError, match=match):
        OnlineDebiaser().update(s, y)
