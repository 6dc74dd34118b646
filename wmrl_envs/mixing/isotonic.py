"""Increasing isotonic regression: scikit-learn's fit, and a pure-numpy pool-adjacent-violators oracle.

Both return the fit as knots ``(x, y)``: the map is ``np.interp(s, x, y)``, linear between knots and
clipped to the end values outside the fitted range (scikit-learn's ``out_of_bounds="clip"``).
"""

from __future__ import annotations

import numpy as np


def pav_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted increasing isotonic fit by pool-adjacent-violators (numpy + one Python loop).

    Ties in ``x`` are first pooled to their weighted mean; then adjacent blocks that violate
    monotonicity are merged into their weighted mean until none does.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(x) if w is None else np.asarray(w, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    knots_x, starts = np.unique(x, return_index=True)
    block_w = np.add.reduceat(w, starts)
    block_y = np.add.reduceat(w * y, starts) / block_w

    # Stack of pooled blocks: mean, weight, number of knots it covers.
    means: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for m, wt in zip(block_y.tolist(), block_w.tolist()):
        means.append(m)
        weights.append(wt)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            m2, w2, n2 = means.pop(), weights.pop(), sizes.pop()
            wt_sum = weights[-1] + w2
            means[-1] = (means[-1] * weights[-1] + m2 * w2) / wt_sum
            weights[-1] = wt_sum
            sizes[-1] += n2
    return knots_x, np.repeat(np.asarray(means), sizes)


def sklearn_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The same fit with scikit-learn's compiled PAV (faster: see benchmarks/mixing.py)."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(increasing=True, out_of_bounds="clip").fit(x, y, sample_weight=w)
    return np.asarray(iso.X_thresholds_, dtype=np.float64), np.asarray(iso.y_thresholds_, dtype=np.float64)


FITS = {"sklearn": sklearn_fit, "numpy": pav_fit}
