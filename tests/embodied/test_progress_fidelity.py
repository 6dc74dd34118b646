"""benchmarks/progress_fidelity.py's within-group figures, against pairs counted by hand: only a
success and a failure from one task and init state make a pair (what GRPO compares), ties count
half, and pairs are split by the size of their score gap."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from progress_fidelity import group_pairs, groups_below, within_group  # noqa: E402


def test_within_group_auc_counts_only_pairs_of_one_start():
    scores = np.array([0.9, 0.2, 0.5, 0.5, 0.1, 0.8, 0.0])
    success = np.array([1, 0, 1, 0, 0, 1, 1])
    groups = [(2, 0), (2, 0), (2, 1), (2, 1), (2, 1), (5, 0), (5, 0)]
    # (2,0): 0.9 > 0.2 right; (2,1): 0.5 = 0.5 half, 0.5 > 0.1 right; (5,0): no failure, no pair.
    # Pooled, the 0.0 success under every failure would count against the model; within groups it never meets one.
    diffs = group_pairs(scores, success, groups)
    np.testing.assert_allclose(sorted(diffs), [0.0, 0.4, 0.7])
    out = within_group(diffs)
    assert out["auc_within"] == 2.5 / 3 and out["pairs_within"] == 3
    assert within_group(group_pairs(scores[5:], success[5:], groups[5:])) == {
        "auc_within": None, "pairs_within": 0, "right_by_gap_quartile": None}


def test_pairs_are_split_by_the_size_of_their_gap():
    diffs = np.array([-0.01, 0.01, 0.02, -0.03, 0.1, 0.2, -0.3, 0.4])  # small gaps mixed, large mostly right
    assert within_group(diffs)["right_by_gap_quartile"] == [0.5, 0.5, 1.0, 0.5]


def test_groups_below_a_spread_are_counted_with_the_signal_they_hold():
    # (0,0) spans 0.05 and its outcomes split, ordered wrongly; (0,1) spans 0.03, all failures;
    # (1,0) spans 0.6, split, ordered right.
    scores = np.array([0.50, 0.55, 0.20, 0.23, 0.21, 0.9, 0.3, 0.4])
    success = np.array([1, 0, 0, 0, 0, 1, 0, 0])
    keys = [(0, 0), (0, 0), (0, 1), (0, 1), (0, 1), (1, 0), (1, 0), (1, 0)]
    low, mid, high = groups_below(scores, success, keys, [0.01, 0.08, 1.0])
    assert low == {"min_wm_spread": 0.01, "groups": 3, "left_out": 0, "left_out_split": 0, "split_groups": 2,
                   "auc_within_left_out": None, "auc_within_kept": 2 / 3}
    assert (mid["left_out"], mid["left_out_split"], mid["auc_within_left_out"], mid["auc_within_kept"]) == (2, 1, 0.0, 1.0)
    assert (high["left_out"], high["left_out_split"], high["auc_within_kept"]) == (3, 2, None)
