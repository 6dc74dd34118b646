"""Intervals over seeds against scipy's, paired differences, and where a curve reaches a level."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from wmrl_agents.stats import first_reach, fmt, interval, paired


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=30))
def test_interval_matches_scipy_t_interval(xs):
    iv = interval(xs)
    if np.std(xs) == 0:
        assert iv["lo"] == pytest.approx(iv["mean"]) and iv["hi"] == pytest.approx(iv["mean"])
        return
    lo, hi = stats.t.interval(0.95, len(xs) - 1, loc=np.mean(xs), scale=stats.sem(xs))
    assert iv["lo"] == pytest.approx(lo, abs=1e-9) and iv["hi"] == pytest.approx(hi, abs=1e-9)
    assert iv["n"] == len(xs)


def test_one_value_has_no_bounds_and_none_values_are_dropped():
    assert interval([0.3]) == {"mean": 0.3, "lo": None, "hi": None, "n": 1}
    assert interval([None, 1.0, 3.0])["mean"] == 2.0
    assert interval([])["mean"] is None
    assert fmt(interval([0.25])) == "0.250" and fmt(interval([])) == "-"


def test_paired_interval_removes_shared_variation():
    rng = np.random.default_rng(0)
    seed_effect = rng.normal(0, 1.0, 8)  # large, shared by both arms
    a, b = seed_effect + 0.5 + rng.normal(0, 0.01, 8), seed_effect
    d = paired(a, b)
    assert d["lo"] > 0.45 and d["hi"] < 0.55
    unpaired = interval(a)["hi"] - interval(a)["lo"]
    assert d["hi"] - d["lo"] < unpaired / 20
    with pytest.raises(ValueError, match="equal lengths"):
        paired([1.0], [1.0, 2.0])


def test_first_reach_interpolates_between_points():
    assert first_reach([0, 10, 20], [0.1, 0.3, 0.5], 0.4) == pytest.approx(15.0)
    assert first_reach([0, 10], [0.5, 0.6], 0.4) == 0.0
    assert first_reach([0, 10], [0.1, 0.2], 0.4) is None
