"""PoolPolicy: the composer's factorized softmax restricted to a fixed pool of programs.

The composer's program space (``wmrl_agents/composer.py``) is far too large to run every program, so its
expected score can only be sampled. Restricted to a pool of ``P`` variant choices ``a = (a_1..a_S)``
(the same choices on every task, rendered per task), the policy keeps the composer's parameters and
features and becomes exactly evaluable from a table of ``P`` real outcomes per task:

    ℓ(a | x)        = Σ_s (θ_s φ(x))[a_s]                       (the composer's log-probability, unnormalised)
    π(a | x)        = softmax over the pool of ℓ(· | x)
    ∇_{θ_s} log π   = (onehot(a_s) - Σ_{a'} π(a' | x) onehot(a'_s)) ⊗ φ(x)
    θ_s            += lr · (1/N) Σ_i A_i ∇_{θ_s} log π(a_i | x_i)

This is the instrument of the controlled-fidelity study (``benchmarks/wm_sensitivity.py``): every
program it can write has a recorded real outcome, so a world model made from that table with a known
distortion can score any sample, and held-out scores are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from wmrl_agents.composer import SLOTS, ComposerPolicy, render
from wmrl_agents.template import task_features


def uniform_pool(size: int, seed: int = 0) -> list[tuple[int, ...]]:
    """``size`` distinct variant choices drawn uniformly from the composer's slots."""
    if size < 2:
        raise ValueError(f"a pool needs at least 2 programs, got {size}")
    rng = np.random.default_rng(seed)
    pool: dict[tuple[int, ...], None] = {}
    while len(pool) < size:
        pool[tuple(int(rng.integers(len(v))) for v in SLOTS.values())] = None
    return list(pool)


def choice_of(actions: Sequence[int]) -> dict[str, str]:
    """Slot name -> variant name for a tuple of variant indices."""
    return {s: SLOTS[s][a] for s, a in zip(SLOTS, actions)}


class PoolPolicy(ComposerPolicy):
    """The composer over a fixed pool of variant choices (see the module docstring).

    Args:
        pool: variant indices per slot, one tuple per program (e.g. :func:`uniform_pool`).
        lr, temperature, seed: as for :class:`~wmrl_agents.composer.ComposerPolicy`.
    """

    def __init__(self, pool: Sequence[Sequence[int]], lr: float = 3.0, temperature: float = 1.0, seed: int = 0) -> None:
        super().__init__(lr=lr, temperature=temperature, seed=seed)
        self.pool = np.asarray(pool, dtype=np.int64)
        if self.pool.ndim != 2 or self.pool.shape[1] != len(SLOTS) or len(self.pool) < 2:
            raise ValueError(f"pool must hold at least 2 tuples of {len(SLOTS)} variant indices")
        for j, (s, variants) in enumerate(SLOTS.items()):
            if self.pool[:, j].min() < 0 or self.pool[:, j].max() >= len(variants):
                raise ValueError(f"pool has a variant index outside slot {s!r} (0..{len(variants) - 1})")
        self._programs: dict[str, list[str]] = {}

    def _logits(self, phi: np.ndarray) -> np.ndarray:
        return sum(((th @ phi)[self.pool[:, j]] for j, th in enumerate(self.theta.values())), np.zeros(len(self.pool)))

    def pool_probs(self, context: Mapping, temperature: float = 1.0) -> np.ndarray:
        z = self._logits(task_features(context)) / temperature
        z = np.exp(z - z.max())
        return z / z.sum()

    def programs(self, context: Mapping) -> list[str]:
        """Every pool program rendered for the task (cached per task)."""
        key = str(context.get("task_id"))
        if key not in self._programs:
            self._programs[key] = [render(choice_of(a), context) for a in self.pool]
        return self._programs[key]

    # A pool policy's records are (pool index, φ(x)), not the composer's (index per slot, φ(x)): the
    # trainer treats records as opaque, so only ComposerPolicy's own annotations disagree.
    def sample(  # type: ignore[override]  # record (pool index, φ) by design, see above
        self, obs, info: dict, rng: np.random.Generator
    ) -> tuple[str, tuple[int, np.ndarray]]:
        context = info.get("wm_context") or {}
        i = int(rng.choice(len(self.pool), p=self.pool_probs(context, self.temperature)))
        return self.programs(context)[i], (i, task_features(context))

    def act_greedy(self, obs, info: dict, rng: np.random.Generator | None = None):
        context = info.get("wm_context") or {}
        i = int(np.argmax(self.pool_probs(context)))
        return self.programs(context)[i], (i, task_features(context))

    def distribution(self, info: dict) -> tuple[np.ndarray, list[str]]:
        """π(·|task) over the pool and its programs (for exact evaluation)."""
        context = info.get("wm_context") or {}
        return self.pool_probs(context), self.programs(context)

    def update(  # type: ignore[override]  # records are (pool index, φ) by design, see sample
        self, records: Sequence[Sequence[tuple[int, np.ndarray]]], advantages: np.ndarray
    ) -> dict:
        """Ascend ``(1/N) Σ_i A_i log π(a_i | x_i)``; returns the surrogate loss (its negative)."""
        grads = {s: np.zeros_like(th) for s, th in self.theta.items()}
        objective = 0.0
        n = max(1, len(records))
        for steps, adv in zip(records, advantages):
            for i, phi in steps:
                z = self._logits(phi)
                p = np.exp(z - z.max())
                p /= p.sum()
                for j, (s, th) in enumerate(self.theta.items()):
                    g = -np.bincount(self.pool[:, j], weights=p, minlength=len(th))  # -E_π[onehot(a'_s)]
                    g[self.pool[i, j]] += 1.0
                    grads[s] += adv * np.outer(g, phi) / n
                objective += adv * np.log(p[i]) / n
        for s in self.theta:
            self.theta[s] += self.lr * grads[s]
        return {"loss": float(-objective), "grad_norm": float(np.sqrt(sum(float((g**2).sum()) for g in grads.values())))}

    def state_dict(self) -> dict:
        return {**super().state_dict(), "pool": self.pool.tolist()}

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.pool = np.asarray(state["pool"], dtype=np.int64)
        self._programs = {}
