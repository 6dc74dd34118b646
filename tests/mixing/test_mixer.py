import json

import numpy as np
import pytest

from wmrl_envs.mixing import OnlineDebiaser, RewardMixer


def _batches(n, seed=0, groups=8, size=4):
    rng = np.random.default_rng(seed)
    for t in range(n):
        keys = [f"{t}-{k}" for k in range(groups)]
        mu = rng.random((groups, size))
        yield keys, 0.2 + 0.6 * mu**2, (rng.random((groups, size)) < mu).astype(float)


def _run(mixer, batches):
    out = []
    for keys, s, y in batches:
        anchors = mixer.select(keys)
        out.append(mixer.mix(list(s), [yy if a else None for yy, a in zip(y, anchors)]))
    return out


def test_anchor_rewards_are_real_and_others_debiased():
    m = RewardMixer(anchor_rate=0.25, min_pairs=4, selection="quota")  # quota: exactly 20 anchors
    results = _run(m, _batches(10))
    last = results[-1]
    keys, s, y = list(_batches(10))[-1]
    after = np.flatnonzero(last.is_anchor).max()  # groups after the batch's last anchor group see its pairs
    for k in range(len(s)):
        if last.is_anchor[k]:
            np.testing.assert_array_equal(last.rewards[k], y[k])
        else:
            np.testing.assert_array_equal(last.rewards[k], last.debiased[k])  # f(s) at the member's turn
            if k > after:
                np.testing.assert_allclose(last.rewards[k], m.debiaser.transform(s[k]))
    assert last.stats["calib_active"] and m.totals["anchor_groups"] == 20
    assert last.stats["realized_rate"] == 0.25
    assert m.totals["executions_saved"] == 60 * 4


def test_advantages_are_centred_and_weighted():
    m = RewardMixer(anchor_rate=0.25)
    r = _run(m, _batches(3))[-1]
    for rew, adv, anc in zip(r.rewards, r.advantages, r.is_anchor):
        c = r.weights.c_anchor if anc else r.weights.c_wm
        np.testing.assert_allclose(adv, c * (rew - rew.mean()))
        assert abs(adv.sum()) < 1e-12


def test_diagnostics_are_out_of_sample():
    m = RewardMixer(anchor_rate=1.0, min_pairs=2)
    s, y = [np.array([0.1, 0.9])], [np.array([0.0, 1.0])]
    first = m.mix(s, y)
    assert first.stats["mae_debiased"] == pytest.approx(first.stats["mae_raw"])  # identity before
    second = m.mix(s, y)
    assert second.stats["mae_debiased"] == pytest.approx(0.0)  # map fitted on batch one


def test_debias_off_is_raw_scores():
    m = RewardMixer(anchor_rate=0.5, min_pairs=2, debias=False)
    r = _run(m, _batches(5))[-1]
    keys, s, _ = list(_batches(5))[-1]
    for k in np.flatnonzero(~r.is_anchor):
        np.testing.assert_array_equal(r.rewards[k], s[k])


def test_state_round_trip_is_exact():
    a = RewardMixer(anchor_rate=0.25, min_pairs=4)
    batches = list(_batches(12))
    _run(a, batches[:6])
    b = RewardMixer()
    b.load_state_dict(json.loads(json.dumps(a.state_dict())))
    for ra, rb in zip(_run(a, batches[6:]), _run(b, batches[6:])):
        for x, y in zip(ra.advantages, rb.advantages):
            np.testing.assert_array_equal(x, y)
        assert ra.stats == rb.stats
    d = OnlineDebiaser()
    d.load_state_dict(json.loads(json.dumps(a.debiaser.state_dict())))
    grid = np.linspace(0, 1, 33)
    np.testing.assert_array_equal(d.transform(grid), a.debiaser.transform(grid))


@pytest.mark.parametrize(
    "s, y, match",
    [
        ([], [], "wm_scores is empty"),
        ([[0.1]], [], "differ in length"),
        ([[0.1, float("nan")]], [None], r"wm_scores\[0\]\[1\]"),
        ([[0.1], [0.2, 0.3]], [None, [0.1, float("inf")]], r"real_scores\[1\]\[1\]"),
        ([[0.1, 0.2]], [[0.1]], r"real_scores\[0\] has 1 scores"),
    ],
)
def test_bad_batches(s, y, match):
    with pytest.raises(ValueError, match=match):
        RewardMixer().mix(s, y)


def test_bad_config():
    with pytest.raises(ValueError, match="anchor_rate"):
        RewardMixer(anchor_rate=0)
    with pytest.raises(ValueError, match="normalize"):
        RewardMixer(normalize="batch")


def test_mixing_config_is_shared_and_names_bad_fields():
    from wmrl_envs.mixing import MixingConfig
    from wmrl_envs.mixing.state import MixingState

    assert RewardMixer().config.selection == MixingState().config.selection == "hash"
    assert RewardMixer(anchor_rate=0.2).config == MixingConfig(anchor_rate=0.2)
    for bad, field in [({"anchor_rate": 0}, "anchor_rate"), ({"anchor_rate": 1.5}, "anchor_rate"),
                       ({"min_pairs": 64, "window": 32}, "min_pairs"), ({"ema": 1.0}, "ema"),
                       ({"selection": "random"}, "selection")]:
        with pytest.raises(ValueError, match=f"MixingConfig.{field}"):
            MixingConfig(**bad)
    with pytest.raises(ValueError, match="eps must be > 0"):  # the trainer's advantage setting since 0.3
        RewardMixer(eps=0)
