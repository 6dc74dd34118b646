"""alaska2's weighted AUC, where the differential's edge cases only reach 1 and 0.

The differential's probability cases are separable, so they never exercise the ROC band edges
that alaska2's metric inserts. These curves (with tied scores, and an edge falling between two
points) were scored by mle-bench 783b15a's own ``alaska_weighted_auc``; the values are its output.
500 random curves with ties agreed exactly when this was written (checked outside the repository).
"""

from __future__ import annotations

import numpy as np
import pytest

from wmrl_envs.mle.mlebench_rules import alaska_weighted_auc

CURVES = [
    ([0, 0, 1, 1, 0, 1, 0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8, 0.7, 0.2, 0.05, 0.9, 0.6, 0.3], 0.8285714285714287),
    ([1, 0, 1, 0, 1, 0, 1, 0], [0.5, 0.5, 0.2, 0.2, 0.9, 0.1, 0.5, 0.7], 0.7236607142857143),
    ([0, 1, 1, 1, 0, 0, 1, 0, 1], [0.9, 0.1, 0.2, 0.3, 0.8, 0.7, 0.25, 0.6, 0.95], 0.28571428571428575),
]


@pytest.mark.parametrize(("labels", "scores", "mlebench"), CURVES)
def test_weighted_auc_matches_mlebench(labels, scores, mlebench):
    got = alaska_weighted_auc(np.array(labels, dtype=float), np.array(scores))
    assert got == pytest.approx(mlebench, rel=1e-12)
