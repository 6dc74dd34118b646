"""RewardMixer: one batch of GRPO groups in; rewards, weighted advantages and statistics out.

Per batch (see ``notes/rl-and-llm.md`` §4):
  1. anchor groups carry real scores ``y`` as well as world-model scores ``s``;
  2. diagnostics on anchors use the map ``f`` as it was *before* this batch (out of sample);
  3. the anchor pairs ``(s, y)`` are added to the debiaser and ``f`` is refitted;
  4. rewards: ``y`` for anchor groups, ``f(s)`` for world-model groups;
  4b. with ``shrink_overrated``, world-model rewards in overrated score bands are shrunk
     (``regions.py``); the anchor pairs also feed the exploitation monitor, whose verdict is in
     ``stats["monitor"]`` and, with ``adaptive``, moves the anchor rate (``controller.py``);
  5-6. :func:`~wmrl_envs.mixing.denoise.weighted_advantages`: ``r - group mean``, inverse-variance
     weights from the anchors' real energy and the world model's out-of-sample residual, applied
     as multipliers ``c_T``.
Pass the advantages to TRL with ``scale_rewards="none"``: its group mean is then 0 and its
advantage equals ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from ._validate import Floats, finite_1d
from .anchors import AnchorSampler
from .config import MixingConfig
from .debias import OnlineDebiaser
from .denoise import InverseVarianceWeights, Weights, weighted_advantages
from .guard import build_guard


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
        config: a :class:`MixingConfig` (defaults if None).
        **overrides: any ``MixingConfig`` field (``RewardMixer(anchor_rate=0.2, weighting="pooled")``).
    """

    def __init__(self, config: MixingConfig | float | None = None, **overrides) -> None:
        self.config = c = MixingConfig.make(config, **overrides)
        self.sampler = AnchorSampler(c.anchor_rate, c.seed, c.selection)
        self.debiaser = OnlineDebiaser(c.window, c.min_pairs)
        self.weighter = InverseVarianceWeights(c.ema, c.weighting)
        self.monitor, self.controller, self.shrinkage = build_guard(c)
        self.totals = {"groups": 0, "anchor_groups": 0, "real_executions": 0, "executions_saved": 0}

    def select(self, keys: Sequence[str], step: int | None = None) -> np.ndarray:
        """Which of these groups are anchors (execute them for real before calling ``mix``)."""
        return self.sampler.select(keys, step)

    def transform(self, wm_scores: Floats) -> np.ndarray:
        """World-model scores through the current debiasing map (identity if ``debias=False``)."""
        s = finite_1d("wm_scores", wm_scores, allow_empty=True)
        return self.debiaser.transform(s) if self.config.debias else s

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
        residuals = [None if y is None else y - self.transform(s) for s, y in zip(s_groups, y_groups)]
        calibrated = self.debiaser.active and self.config.debias
        for s, f, y in zip(s_anchor, self.transform(s_anchor), y_anchor):
            self.monitor.update(s, f, y)
        if y_anchor.size:
            self.debiaser.update(s_anchor, y_anchor)
        debiased = [self._shrunk(self.transform(s)) for s in s_groups]
        rewards = [y if y is not None else d for y, d in zip(y_groups, debiased)]
        c = self.config
        advantages, weights = weighted_advantages(
            rewards, is_anchor, self.weighter, residuals, calibrated, c.normalize, c.eps
        )

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
            calib_active=self.debiaser.active and self.config.debias,
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
            D_W=weights.residual_wm,
            w_floored=weights.floored,
        )
        self._adapt(len(s_groups), stats)
        return MixResult(rewards, advantages, debiased, is_anchor, weights, stats)

    def _shrunk(self, f: np.ndarray) -> np.ndarray:
        """Debiased scores with overrated bands shrunk (``shrink_overrated``; ``regions.py``)."""
        if self.shrinkage is None:
            return f
        bands = self.shrinkage.overrated(self.monitor.recent)
        return np.array([self.shrinkage.adjust(float(v), bands) for v in f])

    def _adapt(self, groups: int, stats: dict) -> None:
        """The monitor's verdict into the stats, and into the anchor rate when ``adaptive``."""
        report = self.monitor.report()
        if self.controller is not None:
            self.sampler.rate = self.controller.groups_completed(groups, report)
        stats.update(anchor_rate=self.sampler.rate, monitor=report)
        if self.shrinkage is not None:
            stats["overrated_bands"] = self.shrinkage.overrated(self.monitor.recent)

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
            "config": self.config.to_dict(),
            "sampler": self.sampler.state_dict(),
            "debiaser": self.debiaser.state_dict(),
            "weighter": self.weighter.state_dict(),
            "totals": dict(self.totals),
            "monitor": self.monitor.state_dict(),
            "controller": None if self.controller is None else self.controller.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        self.config = MixingConfig(**state["config"])
        self.sampler.load_state_dict(state["sampler"])
        self.debiaser.load_state_dict(state["debiaser"])
        self.weighter.load_state_dict(state["weighter"])
        self.totals = dict(state["totals"])
        self.monitor, self.controller, self.shrinkage = build_guard(self.config)
        if state.get("monitor") is not None:
            self.monitor.load_state_dict(state["monitor"])
        if self.controller is not None and state.get("controller") is not None:
            self.controller.load_state_dict(state["controller"])
