"""Which GRPO groups are anchor groups (executed for real as well as scored by the world model)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np

from ._validate import rate_in_unit_interval
from .config import MixingConfig

_MODES = ("hash", "quota")


class AnchorSampler:
    """Decides, per group key, whether a group is an anchor group.

    Args:
        rate: target share of anchor groups, in (0, 1].
        seed: makes the choice reproducible.
        mode: ``"hash"`` is stateless: a group is an anchor iff
            ``sha256(f"{seed}:{step}:{key}") / 2**256 < rate``, so every process agrees without
            talking. ``"quota"`` keeps a credit (``credit += rate * K`` per batch of K groups, take
            ``floor(credit)``), so a stream of batches realizes the rate exactly; which groups are
            taken is a seeded permutation of the batch.
    """

    def __init__(self, rate: float = MixingConfig.anchor_rate, seed: int = 0, mode: str = "hash") -> None:
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
        self.rate = rate_in_unit_interval("rate", rate)
        self.seed = int(seed)
        self.mode = mode
        self.credit = 0.0
        self.step = 0  # batches seen: the default step of the next select()

    def is_anchor(self, key: str, step: int = 0) -> bool:
        """Hash-mode decision for one key (stateless)."""
        digest = hashlib.sha256(f"{self.seed}:{step}:{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2.0**64 < self.rate

    def select(self, keys: Sequence[str], step: int | None = None) -> np.ndarray:
        """A boolean mask over ``keys``: True for anchor groups.

        ``step`` (the trainer step) defaults to the number of earlier calls.
        """
        if len(keys) == 0:
            raise ValueError("keys is empty: a batch needs at least one group")
        seen: set[str] = set()
        for i, k in enumerate(keys):
            if k in seen:
                raise ValueError(f"keys[{i}] = {k!r} repeats an earlier group key")
            seen.add(k)
        t = self.step if step is None else int(step)
        self.step = t + 1
        if self.mode == "hash":
            return np.array([self.is_anchor(str(k), t) for k in keys], dtype=bool)
        self.credit += self.rate * len(keys)
        m = min(len(keys), math.floor(self.credit + 1e-9))
        self.credit -= m
        order = np.random.default_rng([self.seed, t]).permutation(len(keys))
        mask = np.zeros(len(keys), dtype=bool)
        mask[order[:m]] = True
        return mask

    def state_dict(self) -> dict:
        return {"rate": self.rate, "seed": self.seed, "mode": self.mode, "credit": self.credit, "step": self.step}

    def load_state_dict(self, state: dict) -> None:
        type(self).__init__(self, state["rate"], state["seed"], state["mode"])
        self.credit = float(state["credit"])
        self.step = int(state["step"])
