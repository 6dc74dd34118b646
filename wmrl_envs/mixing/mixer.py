"""RewardMixer: one batch of GRPO groups in; rewards, weighted advantages and statistics out.

Per batch (see ``notes/rl-and-llm.md`` §4):
  1. anchor groups carry real scores ``y`` as well as world-model scores ``s``;
  2. diagnostics on anchors use the map ``f`` as it was *before* this batch (out of sample);
  3. the anchor pairs ``(s, y)`` are added to the debiaser and ``f`` is refitted;
  4. rewards: ``y`` for anchor groups, ``f(s)`` for world-model groups;
  5. advantages: ``r - group mean`` (divided by the group std if ``normalize="group"``);
  6. inverse-variance weights from the centred rewards, applied as multipliers ``c_T``.
Pass the advantages to TRL with ``scale_rewards="none"``: its group mean is then 0 and its
advantage equals ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from ._validate import finite_1d, rate_in_unit_interval
from .anchors import AnchorSampler
from .debias import OnlineDebiaser
from .denoise import InverseVarianceWeights, Weights, group_advantages

_NORMALIZE = ("none", "group")


@dataclass
class MixResult:
    """Per-group arrays (in input order) and the batch statistics."""

    rewards: list[np.ndarray]
    advantages: list[np.ndarray]
    debiased: list[np.ndarray]
    is_anchor: np.ndarray
    weights: Weights
    stats: dict = field(default_factory=dict)

    def flat(self, name: str) -> np.ndarray:
        """``rewards``, ``advantages`` or ``debiased`` concatenated over groups."""
        return np.concatenate(getattr(self, name))


def _corr(fn, a: np.ndarray, b: np.ndarray) -> float | None:
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(fn(a, b)[0])


class RewardMixer:
    """WMRL's reward mixing for batches of GRPO groups.

    Args:
        anchor_rate: share of groups executed for real, in (0, 1].
        seed: seeds anchor selection.
        selection: ``"quota"`` (exact long-run rate) or ``"hash"`` (stateless); see AnchorSampler.
        window, min_pairs: the debiaser's memory and warm-up (see OnlineDebiaser).
        ema: smoothing of the per-type energy estimates.
        normalize: ``"none"`` (Dr. GRPO advantages) or ``"group"`` (divide by group std + eps).
        eps: added to the group std when normalizing.
        weighting: ``"energy"`` (Inverse-Variance Denoising) or ``"pooled"`` (ablation: plain GRPO).
        debias: apply Online Debiasing (``False`` is the ablation: raw world-model scores).
    """

    def __init__(
        self,
        anchor_rate: float = 0.1,
        seed: int = 0,
        selection: str = "quota",
        window: int = 4096,
        min_pairs: int = 16,
        ema: float = 0.9,
        normalize: str = "none",
        eps: float = 1e-4,
        weighting: str = "energy",
        debias: bool = True,
    ) -> None:
        if normalize not in _NORMALIZE:
            raise ValueError(f"normalize must be one of {_NORMALIZE}, got {normalize!r}")
        self.anchor_rate = rate_in_unit_interval("anchor_rate", anchor_rate)
        self.sampler = AnchorSampler(anchor_rate, seed, selection)
        self.debiaser = OnlineDebiaser(window, min_pairs)
        self.weighter = InverseVarianceWeights(ema, weighting)
        self.normalize = normalize
        self.eps = float(eps)
        self.debias = bool(debias)
        self.totals = {"groups": 0, "anchor_groups": 0, "real_executions": 0, "executions_saved": 0}

    def select(self, keys: Sequence[str], step: int | None = None) -> np.ndarray:
        """Which of these groups are anchors (execute them for real before calling ``mix``)."""
        return self.sampler.select(keys, step)

    def transform(self, wm_scores: Sequence[float]) -> np.ndarray:
        """World-model scores through the current debiasing map (identity if ``debias=False``)."""
        s = finite_1d("wm_scores", wm_scores, allow_empty=True)
        return self.debiaser.transform(s) if self.debias else s

    def mix(
        self,
        wm_scores: Sequence[Sequence[float]],
        real_scores: Sequence[Sequence[float] | None],
    ) -> MixResult:
        """Mix one batch.

        Args:
            wm_scores: per group, the world-model score of every member (anchors included).
            real_scores: per group, the real scores of its members for anchor groups, else None.
        """
        s_groups, y_groups = self._check(wm_scores, real_scores)
        is_anchor = np.array([y is not None for y in y_groups], dtype=bool)
        s_anchor = np.concatenate([s for s, a in zip(s_groups, is_anchor) if a] or [np.empty(0)])
        y_anchor = np.concatenate([y for y in y_groups if y is not None] or [np.empty(0)])

        stats = self._diagnostics(s_anchor, y_anchor)  # with the map before this batch
        if y_anchor.size:
            self.debiaser.update(s_anchor, y_anchor)
        debiased = [self.transform(s) for s in s_groups]
        rewards = [y if y is not None else d for y, d in zip(y_groups, debiased)]

        centred = group_advantages(rewards, normalize=False)
        sample_anchor = np.concatenate([np.full(len(r), a) for r, a in zip(rewards, is_anchor)])
        weights = self.weighter.update(np.concatenate(centred), sample_anchor)
        adv = group_advantages(rewards, normalize=True, eps=self.eps) if self.normalize == "group" else centred
        advantages = [a * (weights.c_anchor if anc else weights.c_wm) for a, anc in zip(adv, is_anchor)]

        n_real = int(y_anchor.size)
        n_saved = int(sum(len(s) for s, a in zip(s_groups, is_anchor) if not a))
        t = self.totals
        t["groups"] += len(s_groups)
        t["anchor_groups"] += int(is_anchor.sum())
        t["real_executions"] += n_real
        t["executions_saved"] += n_saved
        stats.update(
            groups=len(s_groups),
            anchor_groups=int(is_anchor.sum()),
            realized_rate=t["anchor_groups"] / t["groups"],
            real_executions=n_real,
            executions_saved=n_saved,
            total_real_executions=t["real_executions"],
            total_executions_saved=t["executions_saved"],
            calib_pairs=self.debiaser.n_pairs,
            calib_active=self.debiaser.active and self.debias,
            calib_knots=0 if self.debiaser.knots is None else len(self.debiaser.knots[0]),
            reward_real_mean=float(y_anchor.mean()) if n_real else None,
            reward_wm_debiased_mean=(
                float(np.mean(np.concatenate([d for d, a in zip(debiased, is_anchor) if not a])))
                if n_saved
                else None
            ),
            frac_zero_std_groups=float(np.mean([np.ptp(r) == 0 for r in rewards])),
            v_A=weights.v_anchor,
            v_W=weights.v_wm,
            w_A=weights.w_anchor,
            w_W=weights.w_wm,
            E_A=weights.energy_anchor,
            E_W=weights.energy_wm,
        )
        return MixResult(rewards, advantages, debiased, is_anchor, weights, stats)

    def _diagnostics(self, s: np.ndarray, y: np.ndarray) -> dict:
        if not y.size:
            return dict.fromkeys(
                ("bias_raw", "bias_debiased", "mae_raw", "mae_debiased", "corr_pearson", "corr_spearman")
            )
        f_s = self.transform(s)
        return {
            "bias_raw": float(np.mean(y - s)),
            "bias_debiased": float(np.mean(y - f_s)),
            "mae_raw": float(np.mean(np.abs(y - s))),
            "mae_debiased": float(np.mean(np.abs(y - f_s))),
            "corr_pearson": _corr(sps.pearsonr, s, y),
            "corr_spearman": _corr(sps.spearmanr, s, y),
        }

    @staticmethod
    def _check(wm_scores, real_scores) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
        if len(wm_scores) == 0:
            raise ValueError("wm_scores is empty: a batch needs at least one group")
        if len(wm_scores) != len(real_scores):
            raise ValueError(
                f"wm_scores and real_scores differ in length: {len(wm_scores)} != {len(real_scores)} groups"
            )
        s_groups, y_groups = [], []
        for k, (s, y) in enumerate(zip(wm_scores, real_scores)):
            s = finite_1d(f"wm_scores[{k}]", s)
            if y is not None:
                y = finite_1d(f"real_scores[{k}]", y)
                if len(y) != len(s):
                    raise ValueError(
                        f"real_scores[{k}] has {len(y)} scores but wm_scores[{k}] has {len(s)}"
                    )
            s_groups.append(s)
            y_groups.append(y)
        return s_groups, y_groups

    def state_dict(self) -> dict:
        return {
            "anchor_rate": self.anchor_rate,
            "normalize": self.normalize,
            "eps": self.eps,
            "debias": self.debias,
            "sampler": self.sampler.state_dict(),
            "debiaser": self.debiaser.state_dict(),
            "weighter": self.weighter.state_dict(),
            "totals": dict(self.totals),
        }

    def load_state_dict(self, state: dict) -> None:
        self.anchor_rate = state["anchor_rate"]
        self.normalize = state["normalize"]
        self.eps = state["eps"]
        self.debias = state["debias"]
        self.sampler.load_state_dict(state["sampler"])
        self.debiaser.load_state_dict(state["debiaser"])
        self.weighter.load_state_dict(state["weighter"])
        self.totals = dict(state["totals"])
