"""Input checks shared by the mixing modules: bad input is a ValueError naming argument and index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np

Floats: TypeAlias = "Sequence[float] | np.ndarray"
"""Scores as the mixing modules take them: a list of numbers or a 1-D array."""


def finite_1d(name: str, values: Floats, *, allow_empty: bool = False) -> np.ndarray:
    """``values`` as a float64 1-D array; NaN, infinity or a wrong shape raise ``ValueError``."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name} must be a sequence of numbers: {e}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}] is {arr[i]!r}: scores must be finite numbers")
    return arr


def same_length(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} differ in length: {len(a)} != {len(b)}")


def rate_in_unit_interval(name: str, rate: float) -> float:
    rate = float(rate)
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {rate}")
    return rate
