import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wmrl_envs.mixing import InverseVarianceWeights, MixingConfig, group_advantages, weighted_advantages


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


_group = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(st.tuples(_group, st.booleans()), min_size=1, max_size=8), spread=st.floats(0, 1),
       normalize=st.sampled_from(["none", "group"]), calibrated=st.booleans())
@example(groups=[([0.0, 0.0, 0.0, 0.5, 0.5, 0.999], False)], spread=0.999, normalize="none", calibrated=False)  # the span
def test_a_world_model_group_below_the_spread_is_left_out_as_if_never_there(groups, spread, normalize, calibrated):
    """min_wm_spread: a world-model group spanning less gets advantage 0, and every other group
    gets exactly what it gets from the batch without it (the estimates never saw it); anchor
    groups are never left out."""
    rewards = [r for r, _ in groups]
    anchors = [a for _, a in groups]
    residuals = [[0.3 * x - 0.1 for x in r] if a else None for r, a in groups]
    low = [not a and len(r) > 1 and max(r) - min(r) < spread for r, a in groups]
    adv, w = weighted_advantages(rewards, anchors, InverseVarianceWeights(ema=0.5), residuals, calibrated,
                                 normalize=normalize, min_wm_spread=spread)
    kept = [i for i, lo in enumerate(low) if not lo]
    alone, w_alone = weighted_advantages([rewards[i] for i in kept], [anchors[i] for i in kept],
                                         InverseVarianceWeights(ema=0.5), [residuals[i] for i in kept], calibrated,
                                         normalize=normalize)
    assert w.dropped == sum(low)
    for i, lo in enumerate(low):
        if lo:
            assert np.all(adv[i] == 0)
    for a, b in zip([adv[i] for i in kept], alone):
        np.testing.assert_array_equal(a, b)
    assert (w.w_anchor, w.w_wm, w.c_anchor, w.c_wm) == (w_alone.w_anchor, w_alone.w_wm, w_alone.c_anchor, w_alone.c_wm)


def test_spread_zero_keeps_every_group_and_a_negative_spread_is_refused():
    rewards, anchors = [[0.5, 0.5], [0.1, 0.9], [0.2, 0.3]], [False, True, False]
    a, w = weighted_advantages(rewards, anchors, InverseVarianceWeights())
    b, w0 = weighted_advantages(rewards, anchors, InverseVarianceWeights(), min_wm_spread=0.0)
    assert w == w0 and w0.dropped == 0
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    _, w1 = weighted_advantages(rewards, anchors, InverseVarianceWeights(), min_wm_spread=0.2)
    assert w1.dropped == 2  # [0.5, 0.5] and [0.2, 0.3]; the anchor group spans 0.8 and is kept anyway
    with pytest.raises(ValueError, match=r"MixingConfig.min_wm_spread must be >= 0"):
        MixingConfig(min_wm_spread=-0.1)
