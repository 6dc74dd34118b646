"""The guard's parts: region shrinkage (only bands the recent anchors show overrated move, by the
documented amount), its settings, and a mixing state that refuses a foreign or corrupt snapshot."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from wmrl_envs.mixing import MixingConfig, RegionShrinkage
from wmrl_envs.mixing.state import MixingState


def test_an_overrated_band_is_found_and_shrunk_by_the_formula():
    rs = RegionShrinkage(bands=5, min_pairs=4, n0=8.0, confidence=0.95)
    pairs = [(0.9, 0.9, 0.05)] * 12 + [(0.3, 0.3, 0.32)] * 12
    bands = rs.overrated(pairs)
    assert list(bands) == [4]
    b = bands[4]
    assert b["n"] == 12 and b["residual"] == pytest.approx(-0.85)
    assert b["bound"] == pytest.approx(-0.85)  # no spread: the t interval is the point
    assert b["lambda"] == pytest.approx(12 / 20)
    assert rs.adjust(0.9, bands) == pytest.approx(0.9 - 0.6 * 0.85)
    assert rs.adjust(0.3, bands) == 0.3  # a band without evidence keeps its reward


def test_too_few_pairs_or_an_interval_that_reaches_zero_change_nothing():
    rs = RegionShrinkage(min_pairs=4)
    assert rs.overrated([(0.9, 0.9, 0.0)] * 3) == {}  # 3 < min_pairs
    noisy = [(0.5, 0.5, 0.0), (0.5, 0.5, 0.8)] * 20  # residual -0.1 ± 0.4: t bound +0.03
    assert rs.overrated(noisy) == {}
    rng = np.random.default_rng(0)
    overrated = [(0.9, 0.9, float(y)) for y in rng.uniform(0.0, 0.6, 40)]  # residual -0.6 ± 0.17
    b = rs.overrated(overrated)[4]
    half = stats.t.ppf(0.975, 39) * np.std([y - 0.9 for _, _, y in overrated], ddof=1) / math.sqrt(40)
    assert b["bound"] == pytest.approx(b["residual"] + half)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=20, max_size=120), st.integers(0, 2**31))
def test_a_calibrated_world_model_keeps_its_rewards(fs, seed):
    rng = np.random.default_rng(seed)
    pairs = [(f, f, float(np.clip(f + rng.uniform(-0.05, 0.05), 0, 1))) for f in fs]
    rs = RegionShrinkage()
    bands = rs.overrated(pairs)
    assert all(abs(rs.adjust(f, bands) - f) <= 0.05 for f in fs)  # at most the noise, never a collapse


def test_mixing_state_pays_shrunk_rewards_and_reports_the_bands():
    cfg = MixingConfig(min_pairs=4, shrink_overrated=True, debias=False, monitor_min_pairs=4)
    state = MixingState(cfg)
    for i in range(16):  # anchors: predicted 0.9, real 0.1
        key = f"g{i}"
        state.begin_episode(key)
        state.end_episode(key, 0.1, 0.9, 0.1, episode="0")
    assert state.transform(0.9) < 0.5 and state.transform(0.3) == pytest.approx(0.3)
    assert 4 in state.stats()["overrated_bands"]
    plain = MixingState(MixingConfig(min_pairs=4, debias=False))
    assert plain.transform(0.9) == pytest.approx(0.9) and "overrated_bands" not in plain.stats()


@pytest.mark.parametrize("field, value, message", [
    ("monitor_min_pairs", 2, "monitor_min_pairs"), ("monitor_confidence", 1.0, "monitor_confidence"),
    ("adapt_every", 0, "adapt_every"), ("shrink_bands", 0, "shrink_bands"),
])
def test_bad_guard_settings_name_the_field(field, value, message):
    with pytest.raises(ValueError, match=message):
        MixingConfig(**{field: value})


def test_a_state_file_from_another_configuration_or_corrupt_is_refused(tmp_path):
    path = tmp_path / "s.json"
    state = MixingState(MixingConfig(anchor_rate=0.2), state_path=path)
    state.begin_episode("g0")
    state.end_episode("g0", 0.5, 0.4, None)
    assert MixingState(MixingConfig(anchor_rate=0.2), state_path=path).counts["episodes"] == 1
    with pytest.raises(ValueError, match=r"another configuration: anchor_rate=0.2 \(this run: 0.3\)"):
        MixingState(MixingConfig(anchor_rate=0.3), state_path=path)
    path.write_text("{corrupt")
    with pytest.raises(ValueError, match="cannot resume from the mixing state .*s.json"):
        MixingState(MixingConfig(anchor_rate=0.2), state_path=path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a mixing-state snapshot"):
        MixingState(MixingConfig(anchor_rate=0.2), state_path=path)


def test_reward_mixer_carries_the_guard_and_restores_it():
    from wmrl_envs.mixing import RewardMixer

    mixer = RewardMixer(MixingConfig(anchor_rate=0.1, adaptive=True, shrink_overrated=True, adapt_every=4,
                                     monitor_min_pairs=4, min_pairs=4))
    for _ in range(6):  # every group an anchor here: predicted 0.9, real 0.1
        res = mixer.mix([[0.9] * 4, [0.9] * 4], [[0.1] * 4, None])
    assert res.stats["monitor"]["alarm"] and res.stats["anchor_rate"] > 0.1
    assert 4 in res.stats["overrated_bands"] or mixer.transform([0.9])[0] < 0.5
    clone = RewardMixer(mixer.config)
    clone.load_state_dict(mixer.state_dict())
    assert clone.sampler.rate == mixer.sampler.rate and clone.monitor.report() == mixer.monitor.report()
