"""The anchor-rate controller: up under drift, down when calibrated, within bounds, restored exactly."""

import numpy as np
import pytest

from wmrl_envs.mixing import MixingConfig
from wmrl_envs.mixing.controller import AnchorRateController
from wmrl_envs.mixing.state import MixingState

ALARM = {"alarm": True, "calibrated": False}
CALM = {"alarm": False, "calibrated": True}


def test_steps_are_bounded_and_rates_stay_in_bounds():
    c = AnchorRateController(0.1, 0.05, 0.5, every=4)
    assert c.groups_completed(3, ALARM) == 0.1  # no full window yet
    rates = [c.groups_completed(4, ALARM) for _ in range(10)]
    assert np.all(np.diff([0.1, *rates]) <= 0.1125 + 1e-12) and max(rates) == 0.5
    rates = [c.groups_completed(4, CALM) for _ in range(40)]
    assert min(rates) == 0.05 and all(0.05 <= r <= 0.5 for r in rates)
    assert c.groups_completed(4, {"alarm": False, "calibrated": False}) == 0.05


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="MixingConfig.min_rate must not exceed max_rate"):
        MixingConfig(min_rate=0.6, max_rate=0.5)
    with pytest.raises(ValueError, match="MixingConfig.max_rate must lie in"):
        MixingConfig(max_rate=1.5)
    with pytest.raises(ValueError, match="MixingConfig.min_rate must lie in"):
        MixingConfig(min_rate=0.0)
    with pytest.raises(ValueError, match="MixingConfig.anchor_rate"):
        MixingConfig(adaptive=True, anchor_rate=0.9, max_rate=0.5)
    assert not MixingConfig().adaptive  # the paper's fixed rate is the default


def run(state, n_groups, pair, start=0, size=2):
    """Groups of ``size`` episodes; anchor episodes get a pair from ``pair(rng)``."""
    rng = np.random.default_rng(start)
    for g in range(start, start + n_groups):
        for _ in range(size):
            anchor = state.begin_episode(f"g{g}")
            s, y = pair(rng)
            state.end_episode(f"g{g}", y if anchor else s, s, y if anchor else None)
    return state


def calibrated(rng):
    s = rng.uniform()
    return s, float(rng.uniform() < s)


def overrated(rng):
    return 0.8, 0.0


def test_state_raises_the_rate_under_drift_and_lowers_it_when_calibrated():
    # raw rewards (debias=False): the map cannot catch up with the drift, the monitor must see it
    cfg = MixingConfig(adaptive=True, anchor_rate=0.2, min_rate=0.05, max_rate=0.6, min_pairs=4, debias=False)
    state = run(MixingState(cfg), 400, calibrated)
    assert state.sampler.rate < 0.2 and state.stats()["anchor_rate"] == state.sampler.rate
    low = state.sampler.rate
    run(state, 600, overrated, start=400)
    assert state.stats()["monitor"]["alarm"] and state.sampler.rate > low
    assert state.sampler.rate == pytest.approx(0.6)


def test_rate_round_trips_through_state_dict_and_decides_by_seed_key_rate():
    cfg = MixingConfig(adaptive=True, anchor_rate=0.2, min_rate=0.05, max_rate=0.6, min_pairs=4)
    state = run(MixingState(cfg), 300, calibrated)
    copy = MixingState(cfg)
    copy.load_state_dict(state.state_dict())
    assert copy.state_dict() == state.state_dict()
    assert copy.controller.state_dict() == state.controller.state_dict()
    run(state, 50, overrated, start=300)
    run(copy, 50, overrated, start=300)
    assert copy.state_dict() == state.state_dict()
    fresh = MixingState(cfg)
    fresh.sampler.rate = state.sampler.rate
    assert all(fresh.sampler.is_anchor(f"k{i}") == state.sampler.is_anchor(f"k{i}") for i in range(100))
