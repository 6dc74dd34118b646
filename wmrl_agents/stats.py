"""Means with 95% intervals over seeds, paired differences, and where a curve first reaches a level.

With n seeds, the interval of a mean is Student's t:  mean ± t_{0.975, n-1} · sd / √n.  A paired
difference between two arms uses the per-seed differences (same seed, same tasks, same evaluation
random numbers), which removes the variation the arms share.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats as _st


def interval(values: Sequence[float], level: float = 0.95) -> dict:
    """``{"mean", "lo", "hi", "n"}``; with one value the bounds are None (no spread to measure)."""
    x = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if x.size == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0}
    mean = float(x.mean())
    if x.size < 2:
        return {"mean": mean, "lo": None, "hi": None, "n": 1}
    half = float(_st.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": int(x.size)}


def paired(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> dict:
    """The interval of the mean of ``a - b`` over paired values (seeds)."""
    if len(a) != len(b):
        raise ValueError(f"paired values need equal lengths, got {len(a)} and {len(b)}")
    return interval([x - y for x, y in zip(a, b)], level)


def first_reach(xs: Sequence[float], ys: Sequence[float], level: float) -> float | None:
    """The smallest x at which the piecewise-linear curve (xs, ys) reaches ``level`` (None: never)."""
    for i, (x, y) in enumerate(zip(xs, ys)):
        if y >= level:
            if i == 0:
                return float(x)
            x0, y0 = xs[i - 1], ys[i - 1]
            return float(x0 + (x - x0) * (level - y0) / (y - y0))
    return None


def fmt(iv: dict, digits: int = 3) -> str:
    """``mean [lo, hi]`` (or just the mean with one seed)."""
    if iv.get("mean") is None:
        return "-"
    if iv.get("lo") is None:
        return f"{iv['mean']:.{digits}f}"
    return f"{iv['mean']:.{digits}f} [{iv['lo']:.{digits}f}, {iv['hi']:.{digits}f}]"
