import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmrl_envs.mixing import InverseVarianceWeights, group_advantages, weighted_advantages


def test_group_advantages_dr_grpo_and_normalized():
    a, b = group_advantages([[1.0, 0.0, 0.5], [2.0]])
    np.testing.assert_allclose(a, [0.5, -0.5, 0.0])
    np.testing.assert_allclose(b, [0.0])
    (n,) = group_advantages([[1.0, 0.0, 0.5]], normalize=True, eps=0.0)
    np.testing.assert_allclose(n, [1.0, -1.0, 0.0])  # Bessel std of (1, 0, .5) is 0.5


@settings(max_examples=200, deadline=None)
@given(
    n_a=st.integers(1, 40),
    n_w=st.integers(1, 400),
    e_a=st.floats(1e-6, 10),
    e_w=st.floats(1e-6, 10),
)
def test_weights_sum_to_one_and_multipliers_recombine(n_a, n_w, e_a, e_w):
    centred = np.concatenate([np.full(n_a, np.sqrt(e_a)), np.full(n_w, np.sqrt(e_w))])
    is_anchor = np.arange(n_a + n_w) < n_a
    # The world model's noise is its residual energy D = e_w on anchor pairs, not its rewards' energy.
    w = InverseVarianceWeights().update(centred, is_anchor, np.full(n_a, np.sqrt(e_w)), calibrated=True)
    assert w.w_anchor + w.w_wm == pytest.approx(1.0)
    assert 0 <= w.w_anchor <= 1
    # c_T · N_T / N recovers w_T: the mean loss has gradient Σ_T w_T g_T.
    n = n_a + n_w
    assert w.c_anchor * n_a / n == pytest.approx(w.w_anchor)
    assert w.c_wm * n_w / n == pytest.approx(w.w_wm)
    v_a, v_w = e_a / n_a, e_w / n_w
    assert w.w_anchor == pytest.approx((1 / v_a) / (1 / v_a + 1 / v_w), rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(n_a=st.integers(1, 40), n_w=st.integers(1, 400), e=st.floats(1e-6, 10))
def test_equal_per_sample_variance_gives_pooled_grpo(n_a, n_w, e):
    centred = np.concatenate([np.full(n_a, np.sqrt(e)), -np.full(n_w, np.sqrt(e))])
    w = InverseVarianceWeights().update(centred, np.arange(n_a + n_w) < n_a, np.full(n_a, np.sqrt(e)), True)
    assert w.w_anchor == pytest.approx(n_a / (n_a + n_w))
    assert w.c_anchor == pytest.approx(1.0)
    assert w.c_wm == pytest.approx(1.0)


def test_fallbacks():
    iv = InverseVarianceWeights()
    only_wm = iv.update(np.array([0.1, -0.1]), np.array([False, False]))
    assert (only_wm.w_wm, only_wm.c_wm) == (1.0, 1.0)
    zero_energy = InverseVarianceWeights().update(np.array([0.0, 0.0, 0.3, -0.3]), np.array([1, 1, 0, 0], bool))
    assert zero_energy.pooled and zero_energy.w_anchor == pytest.approx(0.5)
    pooled = InverseVarianceWeights(weighting="pooled").update(np.array([1.0, 1.0, 0.1]), np.array([1, 0, 0], bool))
    assert pooled.pooled and pooled.w_anchor == pytest.approx(1 / 3)


def test_energy_is_an_ema_across_batches():
    iv = InverseVarianceWeights(ema=0.5)
    iv.update(np.array([2.0, 1.0]), np.array([True, False]))
    w = iv.update(np.array([0.0, 1.0]), np.array([True, False]))
    assert w.energy_anchor == pytest.approx(0.5 * 4 + 0.5 * 0)
    assert w.energy_wm == pytest.approx(1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="ema"):
        InverseVarianceWeights(ema=1.0)
    with pytest.raises(ValueError, match="weighting"):
        InverseVarianceWeights(weighting="magic")
    with pytest.raises(ValueError, match="shape"):
        InverseVarianceWeights().update(np.zeros(3), np.zeros(2, bool))


def test_an_uncalibrated_world_model_never_takes_the_anchors_share():
    centred = np.array([0.3, -0.3, 1e-4, -1e-4, 1e-4, -1e-4])  # compressed world-model rewards
    kinds = np.array([1, 1, 0, 0, 0, 0], bool)
    w = InverseVarianceWeights().update(centred, kinds, np.array([0.01, -0.01]), calibrated=False)
    assert w.floored and w.w_anchor == pytest.approx(2 / 6) and w.c_anchor == pytest.approx(1.0)
    earned = InverseVarianceWeights().update(centred, kinds, np.array([0.01, -0.01]), calibrated=True)
    assert earned.w_anchor < 2 / 6  # a calibrated, accurate world model earns more than its share


def test_the_reported_failure_keeps_the_anchor_advantages():
    """Before debiasing (< 16 pairs): compressed world-model scores, anchor rewards that vary."""
    real = [0.742, 0.061, 0.742, 0.742]
    rng = np.random.default_rng(0)
    wm = [0.5 + 1e-3 * rng.standard_normal(4) for _ in range(8)]
    adv, w = weighted_advantages(
        [real] + wm, [True] + [False] * 8, InverseVarianceWeights(), [np.subtract(real, 0.5)], calibrated=False
    )
    np.testing.assert_allclose(adv[0], np.subtract(real, np.mean(real)) * w.c_anchor)
    assert w.c_anchor >= 1.0 and w.w_anchor >= 4 / 36
    assert np.abs(adv[0]).max() > 0.5
