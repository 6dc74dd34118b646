"""INSTRUMENTS for controlled experiments, never world models for users.

``TableWorldModel`` predicts a program's reward from its *recorded real outcome*, passed through a
known monotone distortion and a fixed per-program noise, optionally with a blind spot that overrates
one kind of program (scored like good programs, spread over the high range ``[b, 1]`` so that no
single score level gives it away):

    s(p) = clip( r(p)^γ + σ · z(p), 0, 1 )          z(p) ~ N(0, 1), fixed per (task, program, seed)
    s(p) = max(s(p), b + (1 - b) · u(p))            if p is in the blind spot, u(p) ~ U(0, 1) fixed

``γ`` (distortion) is what Online Debiasing's isotonic map can undo; ``σ`` (noise) is what
inverse-variance weighting can down-weight; the blind spot is a region where the world model is
confidently wrong, which neither can fix and which a reward-hacking guard must notice. Because the
noise is a function of the program, not a fresh draw per call, the same program always gets the same
score, as with a real world model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np

from wmrl_envs.world_models.base import Prediction


def program_hash(task_id: str, program: str) -> str:
    return hashlib.sha256(f"{task_id}\0{program}".encode()).hexdigest()


class TableWorldModel:
    """An instrument world model over a table of real rewards (see the module docstring).

    Args:
        lookup: ``(task_id, program) -> real reward`` (None: not in the table).
        gamma: the monotone distortion's exponent (1: none; > 1 compresses high scores' neighbours
            towards 0).
        sigma: the noise's standard deviation.
        blind: ``program_hash(task_id, program)`` of the programs in the blind spot.
        blind_low: ``b``, the least score a blind-spot program gets.
        seed: seeds the per-program noise.
        task_gamma: per-task exponents in place of ``gamma`` (a bias that differs by task).
    """

    def __init__(self, lookup: Callable[[str, str], float | None], gamma: float = 1.0, sigma: float = 0.0,
                 blind: Collection[str] = (), blind_low: float = 0.6, seed: int = 0,
                 task_gamma: Mapping[str, float] | None = None) -> None:
        if gamma <= 0 or sigma < 0 or any(g <= 0 for g in (task_gamma or {}).values()):
            raise ValueError(f"gamma (and every task_gamma) must be > 0 and sigma >= 0, got {gamma}, {sigma}")
        self.lookup, self.gamma, self.sigma = lookup, float(gamma), float(sigma)
        self.task_gamma = dict(task_gamma or {})
        self.blind, self.blind_low, self.seed = frozenset(blind), float(blind_low), int(seed)

    def _draws(self, h: str) -> tuple[float, float]:
        """The program's fixed noise z ~ N(0, 1) and blind-spot position u ~ U(0, 1)."""
        rng = np.random.default_rng([self.seed, int(h[:15], 16)])
        return float(rng.standard_normal()), float(rng.uniform())

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction:
        task = str(context.get("task_id"))
        real = self.lookup(task, str(action))
        if real is None:
            return Prediction.failure(f"instrument: no recorded outcome for this program on {task}")
        h = program_hash(task, str(action))
        z, u = self._draws(h)
        s = min(1.0, max(0.0, max(real, 0.0) ** self.task_gamma.get(task, self.gamma) + self.sigma * z))
        if h in self.blind:
            s = max(s, self.blind_low + (1.0 - self.blind_low) * u)
        return Prediction(score=s, feedback=f"instrument score {s:.3f}")
