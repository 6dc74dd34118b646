import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmrl_envs.mixing import AnchorSampler


@settings(max_examples=50, deadline=None)
@given(rate=st.floats(0.02, 1.0), seed=st.integers(0, 2**31), n=st.integers(200, 2000))
def test_hash_rate_within_binomial_bounds(rate, seed, n):
    keys = [f"task-{i}" for i in range(n)]
    k = int(AnchorSampler(rate, seed, "hash").select(keys).sum())
    sd = math.sqrt(n * rate * (1 - rate))
    assert abs(k - n * rate) <= 5 * sd + 1


def test_hash_is_stateless_and_agrees_across_instances():
    keys = [f"g{i}" for i in range(100)]
    a = AnchorSampler(0.3, 7, "hash")
    b = AnchorSampler(0.3, 7, "hash")
    np.testing.assert_array_equal(a.select(keys, step=5), b.select(keys, step=5))
    assert [a.is_anchor(k, 5) for k in keys] == a.select(keys, step=5).tolist()
    assert not np.array_equal(a.select(keys, step=5), AnchorSampler(0.3, 8, "hash").select(keys, step=5))


@settings(max_examples=100, deadline=None)
@given(
    rate=st.sampled_from([0.05, 0.1, 0.125, 0.25, 1 / 3, 0.5, 1.0]),
    seed=st.integers(0, 1000),
    sizes=st.lists(st.integers(1, 16), min_size=1, max_size=60),
)
def test_quota_realizes_the_rate_exactly(rate, seed, sizes):
    s = AnchorSampler(rate, seed, "quota")
    taken = sum(int(s.select([f"{t}-{i}" for i in range(k)]).sum()) for t, k in enumerate(sizes))
    assert taken == math.floor(rate * sum(sizes) + 1e-9)


def test_quota_state_round_trip_continues_identically():
    a = AnchorSampler(0.1, 1, "quota")
    for t in range(7):
        a.select([f"{t}-{i}" for i in range(8)])
    b = AnchorSampler()
    b.load_state_dict(a.state_dict())
    for t in range(7, 30):
        keys = [f"{t}-{i}" for i in range(8)]
        np.testing.assert_array_equal(a.select(keys), b.select(keys))


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5, float("nan")])
def test_rate_outside_unit_interval(rate):
    with pytest.raises(ValueError, match="rate"):
        AnchorSampler(rate)


def test_bad_keys():
    with pytest.raises(ValueError, match="empty"):
        AnchorSampler().select([])
    with pytest.raises(ValueError, match=r"keys\[2\]"):
        AnchorSampler().select(["a", "b", "a"])
    with pytest.raises(ValueError, match="mode"):
        AnchorSampler(mode="random")
