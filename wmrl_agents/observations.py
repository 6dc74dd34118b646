"""Observations as policy inputs, shared by the embodied policies (``bc``, ``gaussian``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def flat_obs(obs: Any, key: str | None = None) -> np.ndarray:
    """A float32 vector from a Box observation, or from ``obs[key]`` of a Dict observation."""
    if isinstance(obs, dict):
        if key is None:
            raise ValueError(f"a dict observation needs obs_key=..., one of {sorted(obs)}")
        obs = obs[key]
    return np.asarray(obs, dtype=np.float32).reshape(-1)
