"""Leaderboards and the rewards read from them.

A board is a list of scores, best first, stored as ``rank,team,score`` (MLE-Dojo reads the second
column, MLE-bench the ``score`` column; both work). From one board a score gets:

- ``percentile``: share of the board it beats, linearly interpolated between neighbouring
  scores (0 below the last entry, 1 at or above the first),
- ``position``: MLE-Dojo's ``(N - p + 1) / N`` with ``p`` the first entry it ties or beats,
- ``medal``: MLE-bench's gold/silver/bronze thresholds and strict ``above_median``. A board read
  from an MLE-bench folder (:meth:`Leaderboard.read_mlebench`) is ranked as mle-bench's
  ``Grader.rank_score`` ranks it: thresholds at positions in the file's own order, teams without a
  score counted, the direction from the first and last scores listed (the last *scored* one here:
  mle-bench compares with a NaN and so reads an error-metric board with unscored teams as
  higher-is-better; that is not copied).

``rpg`` is DSBench's Relative Performance Gap against a trivial and a perfect score.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

# Reward modes that place the score on a leaderboard (a task without one cannot use them).
BOARD_MODES = ("percentile", "position", "medal")
REWARD_MODES = (*BOARD_MODES, "rpg", "raw")
MEDALS = ("gold", "silver", "bronze", "above_median")
# Reward paid in ``medal`` mode; no medal pays 0.
MEDAL_REWARD = {"gold": 1.0, "silver": 0.75, "bronze": 0.5, "above_median": 0.25}


@dataclass(frozen=True)
class Leaderboard:
    """Scores of a competition's entries; ``scores`` are sorted best first."""

    scores: np.ndarray
    higher_is_better: bool
    teams: tuple[str, ...] = ()
    listed: np.ndarray | None = None  # MLE-bench boards: the file's scores in its order, NaN kept

    @classmethod
    def from_scores(
        cls,
        scores: Sequence[float] | np.ndarray,
        higher_is_better: bool,
        teams: list[str] | None = None,
    ) -> Leaderboard:
        values = np.asarray(scores, dtype=np.float64)
        teams = list(teams) if teams is not None else [f"team-{i + 1}" for i in range(values.size)]
        keep = np.isfinite(values)
        values, teams = values[keep], [t for t, k in zip(teams, keep) if k]
        if values.size == 0:
            raise ValueError("a leaderboard needs at least one finite score")
        order = np.argsort(-values if higher_is_better else values, kind="stable")
        return cls(values[order], higher_is_better, tuple(teams[i] for i in order))

    @classmethod
    def read(cls, path: str | Path | io.StringIO, higher_is_better: bool) -> Leaderboard:
        """Read a board CSV: the ``score`` column if there is one, else the second column."""
        df = pd.read_csv(path)
        cols = {c.lower(): c for c in df.columns}
        if "score" in cols:
            col = cols["score"]
        elif df.shape[1] >= 2:
            col = df.columns[1]
        else:
            raise ValueError(
                f"{path}: a leaderboard needs a 'score' column or at least two columns"
            )
        scores = pd.to_numeric(df[col], errors="coerce").to_numpy()
        teams = df[cols["team"]].astype(str).tolist() if "team" in cols else None
        try:
            return cls.from_scores(scores, higher_is_better, teams)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None

    @classmethod
    def read_mlebench(cls, path: str | Path, higher_is_better: bool) -> Leaderboard:
        """An MLE-bench ``leaderboard.csv`` (its ``score`` column), whose medals are mle-bench's."""
        listed = pd.to_numeric(pd.read_csv(path)["score"], errors="coerce").to_numpy(dtype=np.float64)
        return replace(cls.read(path, higher_is_better), listed=listed)

    def to_csv(self) -> str:
        """``rank,team,score`` text, best first; tied scores share the better rank."""
        signed = self._signed(self.scores)
        ranks = [int(np.sum(signed > s)) + 1 for s in signed]
        buf = io.StringIO()
        pd.DataFrame({"rank": ranks, "team": list(self.teams), "score": self.scores}).to_csv(
            buf, index=False, float_format="%.10g", lineterminator="\n"
        )
        return buf.getvalue()

    def __len__(self) -> int:
        return int(self.scores.size)

    def _signed(self, x):
        return np.asarray(x, dtype=np.float64) * (1.0 if self.higher_is_better else -1.0)

    def position(self, score: float) -> float:
        """MLE-Dojo's position score: the share of entries the score ties or beats."""
        return float(np.sum(self._signed(self.scores) <= self._signed(score))) / len(self)

    def percentile(self, score: float) -> float:
        """Percentile rank: the share of the board beaten, entries tied counting half (the
        textbook definition), interpolated linearly between neighbouring entries; 0 below the
        last entry, 1 above the first."""
        values, counts = np.unique(self._signed(self.scores), return_counts=True)
        levels = (np.cumsum(counts) - 0.5 * counts) / len(self)
        x = float(self._signed(score))
        if x < values[0]:
            return 0.0
        if x > values[-1]:
            return 1.0
        return float(np.interp(x, values, levels))

    def score_at(self, rank: int) -> float:
        """Score of the entry at 1-based ``rank`` (clamped to the board)."""
        return float(self.scores[min(max(rank, 1), len(self)) - 1])

    def medal(self, score: float) -> str | None:
        """MLE-bench medal for ``score``: a name from ``MEDALS`` or None."""
        scores, higher = self.scores, self.higher_is_better
        if self.listed is not None:  # as mle-bench ranks: positions as listed, direction from the ends
            scores = self.listed
            scored = scores[np.isfinite(scores)]
            higher = not (scored.size and scored[0] < scored[-1])
        sign = 1.0 if higher else -1.0
        x = sign * score
        for name, rank in zip(MEDALS, _medal_ranks(len(scores))):
            if x >= sign * scores[min(max(rank, 1), len(scores)) - 1]:
                return name
        if x > sign * np.nanmedian(scores):
            return "above_median"
        return None


def _medal_ranks(n: int) -> tuple[int, int, int]:
    """The 1-based positions of the gold, silver and bronze thresholds on a board of ``n`` teams."""
    if n < 100:
        return max(1, int(0.1 * n)), max(1, int(0.2 * n)), max(1, int(0.4 * n))
    if n < 250:
        return 10, int(0.2 * n), int(0.4 * n)
    if n < 1000:
        return 10 + int(0.002 * n), 50, 100
    return 10 + int(0.002 * n), int(0.05 * n), int(0.1 * n)


def rpg(score: float, baseline: float, perfect: float) -> float:
    """DSBench's Relative Performance Gap ``max(0, (p - b) / (g - b))`` (0 when g == b)."""
    if not np.isfinite(score) or perfect == baseline:
        return 0.0
    return max(0.0, (score - baseline) / (perfect - baseline))


def board_summary(score: float, boards: list[Leaderboard]) -> dict:
    """Percentile, position (means over the boards) and medal (first board) of ``score``."""
    if not boards:
        return {"percentile": None, "position": None, "medal": None}
    return {
        "percentile": float(np.mean([b.percentile(score) for b in boards])),
        "position": float(np.mean([b.position(score) for b in boards])),
        "medal": boards[0].medal(score),
    }
