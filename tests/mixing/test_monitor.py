"""The exploitation monitor on synthetic anchor-pair streams."""

import numpy as np
import pytest

from wmrl_envs.mixing.monitor import ExploitationMonitor, average_ranks, spearman, wilson
from wmrl_envs.mixing.state import MixingState


def calibrated_pairs(rng, n):
    """f(s) = s and y ~ Bernoulli(s): unbiased, ranks agree."""
    s = rng.uniform(0, 1, n)
    return [(x, x, float(rng.uniform() < x)) for x in s]


def feed(monitor, pairs):
    for s, f, y in pairs:
        monitor.update(s, f, y)


def test_calibrated_stream_raises_no_alarm():
    rng = np.random.default_rng(0)
    m = ExploitationMonitor()
    feed(m, calibrated_pairs(rng, 400))
    rep = m.report()
    assert not rep["alarm"] and not any(rep["drift"].values())
    assert rep["calibrated"] and rep["pairs"] == 400 and rep["recent"]["n"] == 64


def test_policy_drifting_into_overrated_programs_raises_the_alarm():
    rng = np.random.default_rng(1)
    m = ExploitationMonitor()
    feed(m, calibrated_pairs(rng, 100))
    feed(m, [(0.8, 0.8, 0.0)] * 64)  # predicted 0.8, real 0.0
    rep = m.report()
    assert rep["alarm"] and rep["drift"]["overrating"] and rep["drift"]["calib_error"]
    assert not rep["calibrated"]
    recent, ref = rep["recent"], rep["reference"]
    assert recent["overrating"]["lo"] > ref["overrating"]["hi"]  # the bound excludes the reference
    assert recent["calib_error"]["lo"] > ref["calib_error"]["hi"]
    assert m.summary()["overrating"] == 1.0


def test_no_verdict_before_enough_pairs():
    m = ExploitationMonitor()
    feed(m, [(0.8, 0.8, 0.0)] * 10)
    rep = m.report()
    assert not rep["alarm"] and not rep["calibrated"]


def test_bounds():
    iv = wilson(0, 64, 1.96)
    assert iv["lo"] == 0.0 and 0.0 < iv["hi"] < 0.07
    assert np.array_equal(average_ranks(np.array([3.0, 1.0, 3.0, 2.0])), [2.5, 0.0, 2.5, 1.0])
    a = np.arange(30.0)
    rho = spearman(a, a**3, 1.96)
    assert rho["value"] == pytest.approx(1.0) and rho["lo"] > 0.9
    assert spearman(a, np.zeros(30), 1.96) is None


def test_state_round_trip_and_exposure():
    rng = np.random.default_rng(2)
    m = ExploitationMonitor()
    feed(m, calibrated_pairs(rng, 90))
    other = ExploitationMonitor(recent=8, reference=8, min_pairs=4)
    other.load_state_dict(m.state_dict())
    assert other.report() == m.report()
    state = MixingState(anchor_rate=1.0, min_pairs=4)
    for i, (s, _, y) in enumerate(calibrated_pairs(rng, 20)):
        state.begin_episode(f"g{i}")
        state.end_episode(f"g{i}", y, s, y)
    assert state.stats()["monitor"]["pairs"] == 20
    assert set(state.monitor_summary()) >= {"alarm", "calibrated", "anchor_rate", "overrating"}


def test_a_short_run_is_guarded_and_calibration_needs_evidence():
    """Before the reference window fills (a run's first dozens of anchors), a significantly
    overrating reward still raises the alarm; a noisy but unbiased one is not called calibrated
    until its interval is within the tolerance."""
    m = ExploitationMonitor()  # reference: 64 pairs, never full here
    feed(m, [(0.8, 0.8, y) for y in np.random.default_rng(3).uniform(0.0, 0.3, 20)])
    rep = m.report()
    assert rep["overrates"] and rep["alarm"] and not rep["calibrated"]
    noisy = ExploitationMonitor()
    feed(noisy, [(0.5, 0.5, y) for y in (0.0, 1.0) * 8])  # unbiased, sd 0.5: interval ±0.27
    rep = noisy.report()
    assert not rep["alarm"] and not rep["calibrated"]
    precise = ExploitationMonitor()
    feed(precise, [(0.5, 0.5, y) for y in (0.45, 0.55) * 8])  # unbiased, sd 0.05: interval ±0.03
    assert precise.report()["calibrated"]
