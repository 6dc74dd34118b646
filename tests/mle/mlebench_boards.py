"""Synthetic MLE-bench leaderboards and probe scores for the medal differential test.

Each board is a ``leaderboard.csv`` in Kaggle's format, as mle-bench ships one beside a
competition (``scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore``, in the order
listed): every size band of mle-bench's thresholds (under 100, 100-249, 250-999, 1000 and more
teams), both directions, ties at the thresholds, teams without a score (NaN, listed last) and a
board not in order. The probes are each threshold, a hair either side, the median and the ends.
This module imports nothing from wmrl: ``data/mlebench_medals.json`` holds what mle-bench's own
``Grader.rank_score`` (783b15a) said for every board and probe, computed once outside the repo.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:8], 16))


def _scores(name: str) -> np.ndarray:
    """The ``score`` column of board ``name``, in the order listed."""
    size = {"tiny": 7, "small": 60, "mid": 180, "large": 600, "huge": 1500}[name.split("-")[0]]
    rng = _rng(name)
    scores = np.sort(rng.uniform(0.5, 0.95, size).round(4))[::-1]  # best first, higher is better
    if "ties" in name:
        scores = np.sort(np.repeat(scores[: size // 4 + 1], 4)[:size])[::-1]
    if "lower" in name:
        scores = scores[::-1].copy()  # an error metric: lowest first
    if "unscored" in name:
        scores = scores.astype(float)
        scores[-max(2, size // 10):] = np.nan
    if "unsorted" in name:
        scores = scores.copy()
        scores[[1, 3]] = scores[[3, 1]]
        scores[[size // 2, size // 2 + 2]] = scores[[size // 2 + 2, size // 2]]
    return scores


BOARDS = (
    "tiny-higher",
    "small-higher",
    "small-lower",
    "small-ties",
    "small-unscored",
    "small-unsorted",
    "mid-higher",
    "mid-lower-unscored",
    "large-higher",
    "large-ties-lower",
    "huge-higher",
    "huge-lower",
)


def board(name: str) -> pd.DataFrame:
    scores = _scores(name)
    n = scores.size
    return pd.DataFrame(
        {
            "scoreNullable": scores,
            "teamId": 1000 + np.arange(n),
            "hasTeamName": True,
            "submissionDate": "2024-01-01 00:00:00",
            "score": scores,
            "hasScore": ~np.isnan(scores),
        }
    )


def probes(name: str) -> list[float]:
    """Scores to rank on board ``name``: every listed score near a threshold, a hair either side
    of each, the median, and beyond both ends."""
    scores = _scores(name)
    finite = scores[np.isfinite(scores)]
    n = scores.size
    ranks = sorted({1, 2, max(1, int(0.1 * n)), max(1, int(0.2 * n)), max(1, int(0.4 * n)), 10, 11,
                    10 + int(0.002 * n), 50, 100, max(1, int(0.05 * n))})
    out: list[float] = []
    for r in ranks:
        if r <= n and np.isfinite(scores[r - 1]):
            s = float(scores[r - 1])
            out += [s, round(s + 1e-5, 5), round(s - 1e-5, 5)]
    median = float(np.median(finite))
    out += [median, median + 1e-5, median - 1e-5, float(finite.max()) + 0.1, float(finite.min()) - 0.1]
    return sorted(set(out))
