"""Group advantages and Inverse-Variance Denoising of anchor and world-model gradients.

Anchor groups (real rewards) and world-model groups (debiased predictions) give two independent,
roughly unbiased policy-gradient estimates ``g_A`` and ``g_W``. Their combination
``w_A g_A + w_W g_W`` (``w_A + w_W = 1``) has the least variance at ``w_T ∝ 1 / v_T``. With
roughly isotropic score-function gradients, ``v_T ≈ E_T / N_T``: ``E_T`` is the mean squared
centred reward of type T (an EMA across batches) and ``N_T`` its sample count in the batch.

The weights are applied as per-sample advantage multipliers ``c_T = w_T · N / N_T``, so that
the mean loss over all N samples has gradient ``Σ_T w_T g_T``. Equal per-sample energies give
``w_T = N_T / N`` and ``c_T = 1``: plain pooled GRPO.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

_ENERGY_FLOOR = 1e-8
_WEIGHTINGS = ("energy", "pooled")


def group_advantages(
    rewards: Sequence[Sequence[float]], normalize: bool = False, eps: float = 1e-4
) -> list[np.ndarray]:
    """GRPO advantages per group: ``r - mean(r)``, divided by ``std + eps`` if ``normalize``.

    The std is Bessel-corrected (as TRL); a one-member group gets advantage 0.
    """
    out = []
    for r in rewards:
        r = np.asarray(r, dtype=np.float64)
        a = r - r.mean()
        if normalize and len(r) > 1:
            a = a / (r.std(ddof=1) + eps)
        out.append(a)
    return out


@dataclass(frozen=True)
class Weights:
    """One batch's combination weights and the estimates behind them."""

    w_anchor: float
    w_wm: float
    c_anchor: float  # per-sample advantage multiplier of anchor samples
    c_wm: float
    v_anchor: float | None
    v_wm: float | None
    energy_anchor: float | None
    energy_wm: float | None
    pooled: bool  # fell back to N_T / N

    def to_dict(self) -> dict:
        return asdict(self)


class InverseVarianceWeights:
    """EMA energy estimates per reward type and the weights they imply.

    Args:
        ema: smoothing of the per-type energy across batches (``E ← ema·E + (1-ema)·batch``).
        weighting: ``"energy"`` (inverse variance) or ``"pooled"`` (``w_T = N_T / N``, plain GRPO).
    """

    def __init__(self, ema: float = 0.9, weighting: str = "energy") -> None:
        if not 0.0 <= float(ema) < 1.0:
            raise ValueError(f"ema must lie in [0, 1), got {ema}")
        if weighting not in _WEIGHTINGS:
            raise ValueError(f"weighting must be one of {_WEIGHTINGS}, got {weighting!r}")
        self.ema = float(ema)
        self.weighting = weighting
        self.energy: dict[str, float | None] = {"anchor": None, "wm": None}

    def _observe(self, kind: str, centred: np.ndarray) -> float | None:
        if centred.size:
            batch = float(np.mean(centred**2))
            prev = self.energy[kind]
            self.energy[kind] = batch if prev is None else self.ema * prev + (1 - self.ema) * batch
        return self.energy[kind]

    def update(self, centred: np.ndarray, is_anchor: np.ndarray) -> Weights:
        """Fold one batch in and return its weights.

        Args:
            centred: un-normalized centred rewards ``r - group mean``, one per sample. Normalized
                advantages would make every group's energy ≈ (G-1)/G and the weights pooled.
            is_anchor: True for samples of anchor groups.
        """
        centred = np.asarray(centred, dtype=np.float64)
        is_anchor = np.asarray(is_anchor, dtype=bool)
        if centred.shape != is_anchor.shape:
            raise ValueError(f"centred and is_anchor differ in shape: {centred.shape} != {is_anchor.shape}")
        n = centred.size
        n_a = int(is_anchor.sum())
        n_w = n - n_a
        e_a = self._observe("anchor", centred[is_anchor])
        e_w = self._observe("wm", centred[~is_anchor])
        if n_a == 0 or n_w == 0:
            w_a = 1.0 if n_w == 0 else 0.0
            return self._weights(w_a, n, n_a, n_w, None, None, e_a, e_w, pooled=False)
        pooled = (
            self.weighting == "pooled"
            or e_a is None
            or e_w is None
            or e_a < _ENERGY_FLOOR
            or e_w < _ENERGY_FLOOR
        )
        v_a = None if e_a is None else e_a / n_a
        v_w = None if e_w is None else e_w / n_w
        if pooled:
            w_a = n_a / n
        else:
            w_a = (1.0 / v_a) / (1.0 / v_a + 1.0 / v_w)
        return self._weights(w_a, n, n_a, n_w, v_a, v_w, e_a, e_w, pooled=pooled)

    @staticmethod
    def _weights(w_a, n, n_a, n_w, v_a, v_w, e_a, e_w, pooled) -> Weights:
        w_w = 1.0 - w_a
        return Weights(
            w_anchor=w_a,
            w_wm=w_w,
            c_anchor=w_a * n / n_a if n_a else 0.0,
            c_wm=w_w * n / n_w if n_w else 0.0,
            v_anchor=v_a,
            v_wm=v_w,
            energy_anchor=e_a,
            energy_wm=e_w,
            pooled=pooled,
        )

    def state_dict(self) -> dict:
        return {"ema": self.ema, "weighting": self.weighting, "energy": dict(self.energy)}

    def load_state_dict(self, state: dict) -> None:
        self.__init__(state["ema"], state["weighting"])
        self.energy = dict(state["energy"])
