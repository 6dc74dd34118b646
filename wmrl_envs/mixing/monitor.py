r"""Exploitation monitor: is the debiased world-model reward still right on the policy's samples?

GRPO optimizes the reward it is paid. Where the world model overrates a kind of program, the policy
drifts there, and the isotonic map, fitted on pairs from earlier policies, lags behind. The anchor
pairs ``(s, f(s), y)`` (world-model score, its debiased value through the map *before* the pair
was added, real score), in arrival order, measure it out of sample. On a window of ``n`` pairs:

- **calibration error** ``e = mean(f(s) - y)``: > 0, the world model overrates the current
  samples; Student's t interval on the ``n`` terms (each clipped to [-1, 1])::

      e ± t_{(1+c)/2, n-1} · sd / sqrt(n)

  (Hoeffding's distribution-free bound was used first: with each term in [-1, 1] its half-width is
  0.68 at 16 pairs and 0.24 at 128, so over a run's few dozen anchor pairs it could never show a
  bias, and "no evidence of bias" was read as "calibrated".)

- **overrating share** ``p``: the share of pairs *predicted high and real low*,
  ``f(s) ≥ high`` (0.5) and ``y ≤ f(s) - margin`` (0.3): the programs a reward hacker finds.
  Wilson's score interval, with ``z`` the normal quantile of ``(1 + confidence) / 2``::

      (p + z²/2n ± z · sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)

- **rank correlation** ``ρ``: Spearman's (Pearson's on average ranks) between ``f(s)`` and ``y``;
  Fisher's z with the Fieller-Hartley-Pearson variance for Spearman (needs n ≥ 4, both sides
  varying; else None)::

      tanh(atanh(ρ) ± z · sqrt(1.06 / (n - 3)))

Two windows: the **reference**, the first ``reference`` pairs of the run (the start of training,
frozen once full), and the **recent** window, the last ``recent`` pairs (the current policy).
A figure has **drifted** when the recent interval lies wholly on the bad side of the reference
interval (the intervals are disjoint: recent error or overrating share above, correlation below;
the calibration error also drifts when it falls below, an underrating world model). The
**alarm** is raised once the recent window holds ``min_pairs`` and either a figure has drifted (the
reference full) or the recent debiased reward **overrates** the current samples (the calibration
error's interval lies above 0): a short run, whose reference never fills, is still guarded. The
debiased reward is **calibrated** on the current policy when there is no alarm and the calibration
error's interval lies within ``±tolerance``: evidence of no bias, not the absence of evidence.
"""

from __future__ import annotations

import math
from collections import deque
from statistics import NormalDist

import numpy as np
from scipy.stats import t as student_t

Interval = dict  # {"value": float, "lo": float, "hi": float}


def t_mean(x: np.ndarray, confidence: float) -> Interval:
    """Mean of ``x`` and Student's t interval (infinitely wide with one value)."""
    m = float(np.mean(x))
    if len(x) < 2:
        return {"value": m, "lo": -math.inf, "hi": math.inf}
    half = float(student_t.ppf((1 + confidence) / 2, len(x) - 1) * np.std(x, ddof=1) / math.sqrt(len(x)))
    return {"value": m, "lo": m - half, "hi": m + half}


def wilson(k: int, n: int, z: float) -> Interval:
    """Share ``k / n`` and Wilson's score interval."""
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return {"value": p, "lo": max(0.0, centre - half), "hi": min(1.0, centre + half)}


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 0..n-1 of ``x``, ties sharing their average rank."""
    order = np.argsort(x, kind="mergesort")
    _, first, counts = np.unique(x[order], return_index=True, return_counts=True)
    ranks = np.empty(len(x))
    ranks[order] = np.repeat(first + (counts - 1) / 2.0, counts)
    return ranks


def spearman(a: np.ndarray, b: np.ndarray, z: float) -> Interval | None:
    """Spearman's ρ and its Fisher-z interval; None below 4 pairs or when a side is constant."""
    n = len(a)
    if n < 4 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    rho = float(np.corrcoef(average_ranks(a), average_ranks(b))[0, 1])
    centre = math.atanh(min(max(rho, -0.999999), 0.999999))
    half = z * math.sqrt(1.06 / (n - 3))
    return {"value": rho, "lo": math.tanh(centre - half), "hi": math.tanh(centre + half)}


class ExploitationMonitor:
    """Calibration error, overrating share and rank correlation of the debiased world-model reward
    on recent anchor pairs against the start of training (module docstring).

    Args:
        recent: pairs in the recent window (the current policy).
        reference: the first pairs of the run, the reference window.
        min_pairs: recent pairs before any verdict.
        high, margin: the overrating rule ``f(s) ≥ high and y ≤ f(s) - margin``.
        confidence: of every interval.
        tolerance: the largest bias a calibrated reward may have (the interval's bound).
    """

    def __init__(self, recent: int = 64, reference: int = 64, min_pairs: int = 16,
                 high: float = 0.5, margin: float = 0.3, confidence: float = 0.95, tolerance: float = 0.15) -> None:
        if not 4 <= min_pairs <= min(recent, reference):
            raise ValueError(f"min_pairs must lie in [4, min(recent, reference)], got {min_pairs}")
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
        self.recent_size, self.reference_size, self.min_pairs = int(recent), int(reference), int(min_pairs)
        if not 0.0 < tolerance < 1.0:
            raise ValueError(f"tolerance must lie in (0, 1), got {tolerance}")
        self.high, self.margin, self.confidence = float(high), float(margin), float(confidence)
        self.tolerance = float(tolerance)
        self.z = NormalDist().inv_cdf((1 + confidence) / 2)
        self.recent: deque[tuple[float, float, float]] = deque(maxlen=self.recent_size)
        self.reference: list[tuple[float, float, float]] = []
        self.n_pairs = 0

    def update(self, s: float, f: float, y: float) -> None:
        """Add one anchor pair: world-model score, its debiased value (map before the pair), real score."""
        pair = (float(s), float(f), float(y))
        self.recent.append(pair)
        if len(self.reference) < self.reference_size:
            self.reference.append(pair)
        self.n_pairs += 1

    def figures(self, pairs) -> dict:
        """Calibration error, overrating share and Spearman's ρ of ``pairs``, with their intervals."""
        if not pairs:
            return {"n": 0, "calib_error": None, "overrating": None, "spearman": None}
        _, f, y = np.asarray(pairs, dtype=np.float64).T
        over = int(np.sum((f >= self.high) & (y <= f - self.margin)))
        return {
            "n": len(f),
            "calib_error": t_mean(np.clip(f - y, -1.0, 1.0), self.confidence),
            "overrating": wilson(over, len(f), self.z),
            "spearman": spearman(f, y, self.z),
        }

    def report(self) -> dict:
        """Both windows' figures, which figures drifted, the alarm and the calibrated verdict."""
        recent, ref = self.figures(list(self.recent)), self.figures(self.reference)
        ready = recent["n"] >= self.min_pairs
        comparable = ready and len(self.reference) == self.reference_size
        drift = _drift(recent, ref) if comparable else dict.fromkeys(("calib_error", "overrating", "spearman"), False)
        err = recent["calib_error"]
        overrates = ready and err["lo"] > 0.0
        alarm = ready and (any(drift.values()) or overrates)
        calibrated = ready and not alarm and -self.tolerance <= err["lo"] and err["hi"] <= self.tolerance
        return {"pairs": self.n_pairs, "recent": recent, "reference": ref, "drift": drift,
                "overrates": overrates, "alarm": alarm, "calibrated": calibrated}

    def summary(self) -> dict:
        """The small per-episode form: verdicts and the recent point values."""
        rep = self.report()
        value = {k: None if rep["recent"][k] is None else rep["recent"][k]["value"]
                 for k in ("calib_error", "overrating", "spearman")}
        return {"alarm": rep["alarm"], "calibrated": rep["calibrated"], "pairs": rep["pairs"], **value}

    def state_dict(self) -> dict:
        return {"recent_size": self.recent_size, "reference_size": self.reference_size, "min_pairs": self.min_pairs,
                "high": self.high, "margin": self.margin, "confidence": self.confidence, "tolerance": self.tolerance,
                "recent": [list(p) for p in self.recent], "reference": [list(p) for p in self.reference],
                "n_pairs": self.n_pairs}

    def load_state_dict(self, state: dict) -> None:
        type(self).__init__(self, state["recent_size"], state["reference_size"], state["min_pairs"],
                      state["high"], state["margin"], state["confidence"], state.get("tolerance", 0.15))
        self.recent.extend(tuple(p) for p in state["recent"])
        self.reference = [tuple(p) for p in state["reference"]]
        self.n_pairs = int(state["n_pairs"])


def _drift(recent: dict, ref: dict) -> dict:
    """Per figure: whether the recent interval lies wholly on the bad side of the reference's."""
    def above(k: str) -> bool:
        return recent[k] is not None and ref[k] is not None and recent[k]["lo"] > ref[k]["hi"]

    def below(k: str) -> bool:
        return recent[k] is not None and ref[k] is not None and recent[k]["hi"] < ref[k]["lo"]

    return {"calib_error": above("calib_error") or below("calib_error"),
            "overrating": above("overrating"), "spearman": below("spearman")}
