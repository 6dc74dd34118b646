"""RewardMixer: the batch face of the mixer (:class:`~wmrl_envs.mixing.state.MixingState`): one
batch of GRPO groups in; rewards, weighted advantages and statistics out.

It holds one ``MixingState`` and feeds it the batch exactly as ``MixedRewardWrapper`` feeds it
episodes, member by member in input order, so the same batch gives the same advantages through
either path (``tests/mixing/test_one_mixer.py``). Per batch (see ``notes/rl-and-llm.md`` §4):
  1. anchor groups carry real scores ``y`` as well as world-model scores ``s``;
  2. diagnostics on anchors use the map ``f`` as it was *before* this batch (out of sample);
  3. each anchor member's residual ``y - f(s)`` is taken with the map before the batch, as the
     wrapper under a trainer does;
  4. rewards: ``y`` for anchor groups, ``f(s)`` for world-model members, with the same map;
     the batch's pairs ``(s, y)`` enter it (``f`` refitted) when the batch's advantages are
     taken, so the next batch is paid through them (``MixingState.commit``);
  4b. with ``shrink_overrated``, world-model rewards in overrated score bands are shrunk
     (``regions.py``); the anchor pairs also feed the exploitation monitor, whose verdict is in
     ``stats["monitor"]`` and, with ``adaptive``, moves the anchor rate (``controller.py``);
  5-6. :meth:`MixingState.advantages`: ``r - group mean``, inverse-variance weights from the
     anchors' real-reward noise energy and the world model's out-of-sample residual, applied as multipliers
     ``c_T``.
Pass the advantages to TRL with ``scale_rewards="none"``: its group mean is then 0 and its
advantage equals ours. ``state_dict`` is the ``MixingState`` snapshot format.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from ._validate import Floats, finite_1d
from .config import EPS, NORMALIZE, MixingConfig, advantage_setting, saved_config
from .denoise import Weights
from .state import MixingState


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
    """WMRL's reward mixing for batches of GRPO groups: a thin face of one :class:`MixingState`.

    Args:
        config: a :class:`MixingConfig` (defaults if None).
        state_path: where the state lives (``MixingState``'s snapshot and pair log), or None.
        normalize, eps: the advantage setting of the trainer it serves
            (:func:`~wmrl_envs.mixing.config.advantage_setting`).
        **overrides: any ``MixingConfig`` field (``RewardMixer(anchor_rate=0.2, weighting="pooled")``).
    """

    def __init__(self, config: MixingConfig | None = None, state_path: str | os.PathLike | None = None,
                 normalize: str = NORMALIZE, eps: float = EPS, **overrides) -> None:
        self.advantage = advantage_setting(normalize, eps)
        self.state = MixingState(config, state_path=state_path, **overrides)

    # the parts, all the state's
    config = property(lambda self: self.state.config)
    sampler = property(lambda self: self.state.sampler)
    debiaser = property(lambda self: self.state.debiaser)
    weighter = property(lambda self: self.state.weighter)
    monitor = property(lambda self: self.state.monitor)
    controller = property(lambda self: self.state.controller)
    shrinkage = property(lambda self: self.state.shrinkage)

    @property
    def totals(self) -> dict[str, int]:
        """Groups, anchor groups, real executions and executions saved over every batch."""
        c = self.state.counts
        return {k: int(c.get(f"batch_{k}", 0)) for k in _TOTALS}

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
        """Mix one batch (module docstring).

        Args:
            wm_scores: per group, the world-model score of every member (anchors included).
            real_scores: per group, the real scores of its members for anchor groups, else None.
        """
        s_groups, y_groups = self._check(wm_scores, real_scores)
        is_anchor = np.array([y is not None for y in y_groups], dtype=bool)
        s_anchor = np.concatenate([s for s, a in zip(s_groups, is_anchor) if a] or [np.empty(0)])
        y_anchor = np.concatenate([y for y in y_groups if y is not None] or [np.empty(0)])

        stats = self._diagnostics(s_anchor, y_anchor)  # with the map before this batch
        st = self.state
        batch = st.counts.get("batch_batches", 0)
        rewards, debiased, keys = [], [], []
        for k, (s, y) in enumerate(zip(s_groups, y_groups)):
            keys.append(f"batch{batch}-g{k}")
            r, d = [], []
            for i, s_i in enumerate(s.tolist()):  # as the wrapper: begin, pay, end (pair in), per member
                st.begin_episode(keys[-1], anchor=y is not None, member=i)
                d.append(st.transform(s_i))
                r.append(d[-1] if y is None else float(y[i]))
                st.end_episode(keys[-1], r[-1], s_i, None if y is None else r[-1], episode=str(i), member=i)
            rewards.append(np.array(r) if y is None else y)
            debiased.append(np.array(d))
        n_real = int(y_anchor.size)
        n_saved = int(sum(len(s) for s, a in zip(s_groups, is_anchor) if not a))
        with st.lock:
            for name, n in zip(("batches", *_TOTALS), (1, len(s_groups), int(is_anchor.sum()), n_real, n_saved)):
                st.counts[f"batch_{name}"] = st.counts.get(f"batch_{name}", 0) + n
        advantages, weights = st.advantages(keys, **self.advantage)  # saves
        t = self.totals
        stats.update(
            groups=len(s_groups),
            anchor_groups=int(is_anchor.sum()),
            realized_rate=t["anchor_groups"] / t["groups"],
            real_executions=n_real,
            executions_saved=n_saved,
            total_real_executions=t["real_executions"],
            total_executions_saved=t["executions_saved"],
            calib_pairs=self.debiaser.n_pairs,
            calib_active=st.calibrated,
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
            anchor_rate=self.sampler.rate,
            **st.guard.report(),
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
        """The ``MixingState`` snapshot (one format for the batch API and the wrappers)."""
        return self.state.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Restore a snapshot (its configuration and advantage setting included). The format ``RewardMixer`` wrote before
        the one mixer (``totals`` and no ``anchor_of``) is refused since 0.3."""
        if "anchor_of" not in state:
            raise ValueError("this RewardMixer state has 'totals' and no 'anchor_of': it was written before the one "
                             "mixer (wmrl 0.2 before 2026-12-02), a format read until 0.3; load it with wmrl 0.2.0 "
                             "and save it again (RewardMixer.state_dict), or start a new RewardMixer")
        self.state = MixingState(MixingConfig(**saved_config(state["config"])))
        self.state.load_state_dict(state, with_pairs=True)
        if self.state.advantage is not None:  # the saved run's advantage setting, as its configuration
            self.advantage = dict(self.state.advantage)


_TOTALS = ("groups", "anchor_groups", "real_executions", "executions_saved")
