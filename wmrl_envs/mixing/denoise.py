r"""Group advantages and Inverse-Variance Denoising of anchor and world-model gradients.

One update, with anchor groups (real rewards ``y``) and world-model groups (debiased predictions
``f(s)``), both estimating the policy gradient ``g = E[(μ - μ̄) ∇log π]`` of the *expected real*
reward ``μ``::

    g_T = (1/N_T) Σ_{j∈T} A_j ∇log π_j,   A_j = r_j - mean(r in j's group),   T ∈ {A, W}
    g   = w_A g_A + w_W g_W,  w_A + w_W = 1   →   Var g = w_A² v_A + w_W² v_W
    w_T = (1/v_T) / (1/v_A + 1/v_W)            (the least-variance combination)

**What v_T is.** Write a sample's reward as ``r = μ + e_T``. With roughly isotropic score
functions (``E‖∇log π‖² = κ``) the part of ``g_T``'s error that the two types do *not* share is
their reward noise: ``v_T ≈ κ · E[(e_T - ē_T)²] / N_T``. It must be measured on one scale, the
real rewards', by something that can see it:

- anchors, ``e_A = y - μ`` (outcome noise). ``E_A = E[(y - ȳ)²]`` over anchor groups bounds it
  from above (it adds the within-group variance of ``μ``)::

      N_A · v_A / κ ≈ E_A

- world model, ``e_W = f(s) - μ``. On anchor pairs ``d = y - f(s) = e_A - e_W`` is observed, on
  the real scale, with ``f`` the map *before* the pairs were added (out of sample)::

      D = E[(d - d̄)²] = σ²_{e_A} + σ²_{e_W}  ≥  σ²_{e_W}        N_W · v_W / κ ≈ D

  Both are upper bounds by a term ≥ 0, so neither type is called precise on faith. The energy of
  the world-model rewards themselves, ``E[(f - f̄)²]``, is *not* ``v_W``: a world model whose
  scores barely vary has tiny energy, but it is uninformative, not precise (its ``D`` ≈ ``E_A``).

**Until the world model has earned it** (its residuals were measured through an *active*
debiasing map: ``calibrated``), raw scores are on their own scale and ``D`` says little, so
anchors keep at least their share of samples: ``w_A ≥ N_A / N``. After, ``w_A`` follows
``v_A, v_W`` (below ``N_A / N`` when ``D < E_A``: the world model predicts the real reward better
than one real outcome does).

``E_A`` and ``D`` are EMAs across batches. The weights are applied as per-sample advantage
multipliers ``c_T = w_T · N / N_T``, so the mean loss over all N samples has gradient
``Σ_T w_T g_T``; ``w_T = N_T / N`` gives ``c_T = 1``: plain pooled GRPO. One-member groups carry
no within-group information (advantage 0) and are left out of every estimate; so, with
``min_wm_spread``, are world-model groups whose rewards span less than it: a world model's order of
two episodes whose scores barely differ is a coin flip (on LIBERO, 50-59% right in the smallest
quartile of gaps), and a coin flip's gradient is noise the estimates would call signal.

:func:`weighted_advantages` is the one path "centre per group → weights → multiply" that the
mixer, the mixing state and the trainers all take.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from ._validate import Floats
from .config import EPS, NORMALIZE, check_weighting, saved_weighting

_FLOOR = 1e-8


def group_advantages(
    rewards: Sequence[Floats], normalize: bool = False, eps: float = EPS
) -> list[np.ndarray]:
    """GRPO advantages per group: ``r - mean(r)``, divided by ``std + eps`` if ``normalize``.

    The std is Bessel-corrected (as TRL); a one-member group gets advantage 0.
    """
    out = []
    for group in rewards:
        r = np.asarray(group, dtype=np.float64)
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
    energy_anchor: float | None  # E_A
    energy_wm: float | None  # energy of the world-model rewards (logged, not used)
    residual_wm: float | None  # D
    pooled: bool  # fell back to N_T / N
    floored: bool  # w_A raised to N_A / N: the world model has not earned more yet
    dropped: int = 0  # world-model groups of the batch that spanned less than min_wm_spread

    def to_dict(self) -> dict:
        return asdict(self)


class InverseVarianceWeights:
    """EMA noise estimates per reward type and the weights they imply (module docstring).

    Args:
        ema: smoothing across batches (``E ← ema·E + (1-ema)·batch``).
        weighting: ``"inverse-variance"`` (``w_T ∝ 1/v_T``) or ``"pooled"`` (``w_T = N_T / N``, plain
            GRPO).

    ``energy`` holds the EMA noise energies, the mean squared group-centred values behind ``v_T``:
    ``"anchor"`` is ``E_A`` (real rewards), ``"residual"`` is ``D`` (out-of-sample ``y - f(s)`` on
    anchor pairs), ``"wm"`` the world-model rewards' own (logged, not used; module docstring).
    """

    def __init__(self, ema: float = 0.9, weighting: str = "inverse-variance") -> None:
        self._set(ema, weighting)

    def _set(self, ema: float, weighting: str) -> None:
        if not 0.0 <= float(ema) < 1.0:
            raise ValueError(f"InverseVarianceWeights ema must lie in [0, 1), got {ema}")
        check_weighting(weighting, "InverseVarianceWeights weighting")
        self.ema = float(ema)
        self.weighting = weighting
        self.energy: dict[str, float | None] = {"anchor": None, "wm": None, "residual": None}

    def _observe(self, kind: str, centred: np.ndarray) -> float | None:
        if centred.size:
            batch = float(np.mean(centred**2))
            prev = self.energy.get(kind)
            self.energy[kind] = batch if prev is None else self.ema * prev + (1 - self.ema) * batch
        return self.energy.get(kind)

    def update(
        self,
        centred: np.ndarray,
        is_anchor: np.ndarray,
        residuals: np.ndarray | None = None,
        calibrated: bool = False,
    ) -> Weights:
        """Fold one batch in and return its weights.

        Args:
            centred: un-normalized centred rewards ``r - group mean``, one per sample.
            is_anchor: True for samples of anchor groups.
            residuals: group-centred ``y - f(s)`` of the anchor pairs (``f`` before this batch).
            calibrated: whether those residuals went through an active debiasing map.
        """
        centred = np.asarray(centred, dtype=np.float64)
        is_anchor = np.asarray(is_anchor, dtype=bool)
        if centred.shape != is_anchor.shape:
            raise ValueError(f"centred and is_anchor differ in shape: {centred.shape} != {is_anchor.shape}")
        n_a, n_w = int(is_anchor.sum()), int((~is_anchor).sum())
        e_a = self._observe("anchor", centred[is_anchor])
        e_w = self._observe("wm", centred[~is_anchor])
        d = self._observe("residual", np.asarray(residuals if residuals is not None else [], dtype=np.float64))
        est = (e_a, e_w, d)
        if n_a == 0 or n_w == 0:
            return _weights(1.0 if n_w == 0 else 0.0, n_a, n_w, None, None, est, pooled=False, floored=False)
        if self.weighting == "pooled" or e_a is None or d is None or e_a < _FLOOR:
            return _weights(n_a / (n_a + n_w), n_a, n_w, None, None, est, pooled=True, floored=False)
        v_a, v_w = e_a / n_a, max(d, _FLOOR) / n_w
        w_a = (1.0 / v_a) / (1.0 / v_a + 1.0 / v_w)
        floored = not calibrated and w_a < n_a / (n_a + n_w)
        return _weights(n_a / (n_a + n_w) if floored else w_a, n_a, n_w, v_a, v_w, est, pooled=False, floored=floored)

    def state_dict(self) -> dict:
        return {"ema": self.ema, "weighting": self.weighting, "energy": dict(self.energy)}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`; a state saved with the deprecated ``"energy"`` loads as
        ``"inverse-variance"``, silently (the run chose it before the rename)."""
        self._set(state["ema"], saved_weighting(state["weighting"]))
        self.energy.update(state["energy"])


def _weights(w_a: float, n_a: int, n_w: int, v_a, v_w, est: tuple, *, pooled: bool, floored: bool) -> Weights:
    n, w_w = n_a + n_w, 1.0 - w_a
    return Weights(
        w_anchor=w_a,
        w_wm=w_w,
        c_anchor=w_a * n / n_a if n_a else 1.0,
        c_wm=w_w * n / n_w if n_w else 1.0,
        v_anchor=v_a,
        v_wm=v_w,
        energy_anchor=est[0],
        energy_wm=est[1],
        residual_wm=est[2],
        pooled=pooled,
        floored=floored,
    )


def weighted_advantages(
    rewards: Sequence[Floats],
    is_anchor: Sequence[bool] | np.ndarray,
    weighter: InverseVarianceWeights,
    residuals: Sequence[Floats | None] | None = None,
    calibrated: bool = False,
    normalize: str = NORMALIZE,
    eps: float = EPS,
    min_wm_spread: float = 0.0,
) -> tuple[list[np.ndarray], Weights]:
    """The one path: centre per group → inverse-variance weights → multiply.

    Args:
        rewards: per *complete* group, its members' rewards (real for anchors, else ``f(s)``).
        is_anchor: per group, whether it is an anchor group.
        weighter: the running estimates (updated in place).
        residuals: per group, ``y - f(s)`` of its anchor pairs (``f`` before they were added),
            or None (world-model groups, anchors without a prediction).
        calibrated: whether the residuals' map was active (module docstring).
        normalize: ``"none"`` (Dr. GRPO) or ``"group"`` (advantages ÷ group std + eps; the
            weights still come from the un-normalized centred rewards).
        min_wm_spread: world-model groups whose rewards span less get advantage 0 and are left
            out of the estimates (module docstring); 0 keeps all.

    Returns the weighted advantages per group and the weights.
    """
    if len(rewards) != len(is_anchor):
        raise ValueError(f"rewards and is_anchor differ in length: {len(rewards)} != {len(is_anchor)} groups")
    residuals = residuals if residuals is not None else [None] * len(rewards)
    centred = group_advantages(rewards)
    low = [not a and len(r) > 1 and float(np.ptp(np.asarray(r, dtype=np.float64))) < min_wm_spread
           for r, a in zip(rewards, is_anchor)]  # the rewards' own span (centring rounds it)
    informative = [len(c) > 1 and not lo for c, lo in zip(centred, low)]
    flat = [c for c, i in zip(centred, informative) if i]
    kinds = [np.full(len(c), bool(a)) for c, a, i in zip(centred, is_anchor, informative) if i]
    resid = [np.asarray(r, dtype=np.float64) for r, i in zip(residuals, informative) if i and r is not None]
    weights = weighter.update(
        np.concatenate(flat) if flat else np.empty(0),
        np.concatenate(kinds) if kinds else np.empty(0, bool),
        np.concatenate([r - r.mean() for r in resid]) if resid else None,
        calibrated,
    )
    adv = group_advantages(rewards, normalize=True, eps=eps) if normalize == "group" else centred
    weights = replace(weights, dropped=sum(low))
    return [a * (0.0 if lo else weights.c_anchor if anc else weights.c_wm)
            for a, anc, lo in zip(adv, is_anchor, low)], weights
