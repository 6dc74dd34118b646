r"""Down-weighting what the world model cannot judge: shrink overrated score bands to the anchors.

The isotonic map ``f`` is fitted on every anchor pair of the window, from all the policies of the
run. When the policy moves into programs the world model overrates, the recent anchor pairs in that
part of the score range show it before the map does (its older pairs outvote them). This rule uses
the exploitation monitor's recent window of pairs ``(s, f(s), y)``, split into ``B`` equal bands of
the debiased score ``f(s)`` on [0, 1]. For band ``b`` with ``n_b`` recent pairs:

    e_b   = mean over the band of (y - f(s))                    (its residual: < 0 is overrated)
    h_b   = t_{(1+c)/2, n_b-1} · sd_b / sqrt(n_b)               (Student's t, confidence c)
    band b is overrated   iff   n_b ≥ min_pairs  and  e_b + h_b < 0

A world-model reward whose debiased score falls in an overrated band is shrunk towards the anchors'
estimate of that band, with the weight the evidence earns (``n0`` pairs of prior weight):

    λ_b       = n_b / (n_b + n0)
    r'(s)     = f(s) + λ_b · e_b          (= (1-λ_b) f(s) + λ_b (f(s) + e_b), clipped to [0, 1])

Nothing changes where the anchors show no significant overrating, so a calibrated world model keeps
its rewards; an overrated band loses most of its pull on the policy as evidence accumulates. The
rule has no state of its own: it reads the monitor's window, which is part of the mixing state.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .monitor import t_mean


class RegionShrinkage:
    """Shrinks debiased world-model scores in overrated bands (module docstring).

    Args:
        bands: equal bands of the debiased score on [0, 1].
        min_pairs: recent pairs a band needs before it can be judged.
        n0: prior weight (in pairs) of the world model's own score.
        confidence: of the t interval.
    """

    def __init__(self, bands: int = 5, min_pairs: int = 4, n0: float = 8.0, confidence: float = 0.95) -> None:
        if bands < 1 or min_pairs < 1 or n0 <= 0 or not 0 < confidence < 1:
            raise ValueError(f"need bands >= 1, min_pairs >= 1, n0 > 0, confidence in (0, 1); got "
                             f"{bands}, {min_pairs}, {n0}, {confidence}")
        self.bands, self.min_pairs, self.n0 = int(bands), max(2, int(min_pairs)), float(n0)
        self.confidence = float(confidence)

    def band(self, f: float) -> int:
        return min(self.bands - 1, max(0, int(f * self.bands)))

    def overrated(self, pairs: Iterable[tuple[float, float, float]]) -> dict[int, dict]:
        """Per overrated band: ``{"n", "residual", "bound", "lambda"}`` from pairs ``(s, f(s), y)``."""
        by_band: dict[int, list[float]] = {}
        for _, f, y in pairs:
            by_band.setdefault(self.band(f), []).append(float(y) - float(f))
        out = {}
        for b, res in by_band.items():
            n = len(res)
            if n < self.min_pairs:
                continue
            iv = t_mean(np.asarray(res), self.confidence)
            if iv["hi"] < 0:
                out[b] = {"n": n, "residual": iv["value"], "bound": iv["hi"], "lambda": n / (n + self.n0)}
        return out

    def adjust(self, f: float, overrated: dict[int, dict]) -> float:
        """``r'(s)`` for a debiased score ``f`` given :meth:`overrated`'s bands."""
        b = overrated.get(self.band(f))
        if b is None:
            return f
        return float(min(1.0, max(0.0, f + b["lambda"] * b["residual"])))
