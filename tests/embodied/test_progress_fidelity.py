"""benchmarks/progress_fidelity.py's within-group figures, against pairs counted by hand: only a
success and a failure from one task and init state make a pair (what GRPO compares), ties count
half, and pairs are split by the size of their score gap."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from progress_fidelity import group_pairs, within_group  # noqa: E402


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
