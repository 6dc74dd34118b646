"""``MixingConfig``: the one configuration of WMRL's mixing, shared by ``RewardMixer``,
``MixingState`` and ``MixedRewardWrapper`` (and the trainers that build them).

``weighting="inverse-variance"`` combines the anchor and world-model gradients with weights
``w_T ∝ 1/v_T`` (``mixing/denoise.py``); its first name, ``"energy"`` (after the noise *energies*
``E[(r - r̄)²]`` that estimate ``v_T``), told a newcomer nothing. It was renamed in 0.2 and is
refused since 0.3 (with the new name in the message); state and config files that saved it load as
``"inverse-variance"`` (:func:`saved_weighting`, :func:`saved_config`): a resumed run is the same run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

_SELECTIONS = ("hash", "quota")
CALIBRATIONS = ("pooled", "per-task")
WEIGHTINGS = ("inverse-variance", "pooled")
_RENAMED_WEIGHTINGS = {"energy": "inverse-variance"}  # a name removed in 0.3 -> its name


def saved_weighting(value: str) -> str:
    """A weighting read from a file saved before a rename, under its current name (the same setting)."""
    return _RENAMED_WEIGHTINGS.get(value, value)


def check_weighting(value: Any, name: str) -> None:
    """A ``ValueError`` naming the field ``name``, the choices and, for a removed name, its new one."""
    if value in WEIGHTINGS:
        return
    renamed = _RENAMED_WEIGHTINGS.get(value)
    hint = f" ({value!r} was renamed {renamed!r} in 0.2 and removed in 0.3)" if renamed else ""
    raise ValueError(f"{name} must be one of {WEIGHTINGS}{hint}, got {value!r}")


NORMALIZE = "none"  # every arm's advantages by default: Dr. GRPO's r - group mean
EPS = 1e-4  # added to the group std with normalize="group"
ADVANTAGE_FIELDS = ("normalize", "eps")
"""Saved in a ``MixingConfig`` before 0.3; the trainer's advantage setting since (``advantage_setting``)."""


def saved_config(config: dict[str, Any]) -> dict[str, Any]:
    """A saved ``MixingConfig.to_dict()`` as this version's fields: deprecated values under their
    current names (a state written before a rename resumes as the same configuration), and without
    the advantage setting 0.2 kept there (the state checks it: ``MixingState.advantages``)."""
    config = {k: v for k, v in config.items() if k not in ADVANTAGE_FIELDS}
    if "weighting" not in config:
        return config
    return {**config, "weighting": saved_weighting(config["weighting"])}


def advantage_setting(normalize: str = NORMALIZE, eps: float = EPS) -> dict[str, Any]:
    """Every arm's GRPO advantage setting, checked: ``normalize`` ``"none"`` (Dr. GRPO: ``r - group
    mean``) or ``"group"`` (also ÷ the group's std + ``eps``, as the original GRPO); ``eps`` > 0."""
    if normalize not in ("none", "group"):
        raise ValueError(f"normalize must be 'none' or 'group', got {normalize!r}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps > 0:
        raise ValueError(f"eps must be > 0 (added to the group std), got {eps!r}")
    return {"normalize": normalize, "eps": float(eps)}


@dataclass(frozen=True)
class MixingConfig:
    """How groups are anchored, how world-model scores are debiased and how the gradient is weighted.

    ``selection`` defaults to ``"hash"``: it is a pure function of ``(seed, step, group key)``, so
    env copies, processes and a resumed run all agree on which groups are anchors without sharing
    state; ``"quota"`` realizes the rate exactly but only within one process's stream of batches.
    ``adaptive=True`` lets :class:`~wmrl_envs.mixing.controller.AnchorRateController` move the
    rate between ``min_rate`` and ``max_rate``, starting from ``anchor_rate``.
    Every field's help is in its ``metadata["help"]``; bad values raise ``ValueError`` naming it.
    """

    anchor_rate: float = field(default=0.1, metadata={"help": "share of groups executed for real, in (0, 1]"})
    seed: int = field(default=0, metadata={"help": "seeds anchor selection"})
    group_size: int | None = field(
        default=None,
        metadata={"help": "G: an env copy's consecutive episodes reset without a group key (SB3's automatic resets) "
                  "form groups of G; None: each is its own group (no inverse-variance weight without a trainer); "
                  "episodes with a group key ignore it; >= 2"},
    )
    selection: str = field(
        default="hash", metadata={"help": "'hash' (stateless, every process agrees) or 'quota' (exact rate in one process)"},
    )
    window: int = field(default=4096, metadata={"help": "anchor pairs the debiaser keeps (the newest)"})
    min_pairs: int = field(default=16, metadata={"help": "anchor pairs before the debiasing map is applied; at most window"})
    debias: bool = field(default=True, metadata={"help": "apply Online Debiasing (False: the raw-score ablation)"})
    calibration: str = field(
        default="pooled",
        metadata={"help": "'pooled' (one isotonic map for every task) or 'per-task' (each task's own isotonic map "
                  "blended with the pooled one by pair count: mixing/calibration.py)"},
    )
    task_prior: float = field(
        default=8.0, metadata={"help": "calibration='per-task': pseudo-pairs that shrink a task's own map "
                               "towards the pooled map; > 0"},
    )
    ema: float = field(default=0.9, metadata={"help": "smoothing of the noise estimates across batches, in [0, 1)"})
    min_wm_spread: float = field(
        default=0.0,
        metadata={"help": "a world-model group whose rewards span less than this moves nothing (advantage 0, left out "
                  "of the noise estimates): below the gap where a world model orders a pair no better than a coin "
                  "(docs/embodied.md); 0 keeps every group; >= 0"},
    )
    weighting: str = field(
        default="inverse-variance",
        metadata={"help": "'inverse-variance' (anchor and world-model gradients weighted by 1/their noise) or "
                  "'pooled' (plain GRPO ablation); 'energy' is its deprecated name"},
    )
    adaptive: bool = field(
        default=False, metadata={"help": "adapt the anchor rate to the exploitation monitor (False: the paper's fixed rate)"},
    )
    min_rate: float = field(default=0.05, metadata={"help": "lowest adaptive anchor rate, in (0, 1]"})
    max_rate: float = field(default=0.5, metadata={"help": "highest adaptive anchor rate, in (0, 1], >= min_rate"})
    adapt_every: int = field(default=16, metadata={"help": "completed groups between two moves of the adaptive rate"})
    monitor_recent: int = field(
        default=64, metadata={"help": "anchor pairs in the monitor's recent window (the current policy)"},
    )
    monitor_reference: int = field(
        default=64, metadata={"help": "first anchor pairs of the run: the monitor's reference window"},
    )
    monitor_min_pairs: int = field(
        default=16, metadata={"help": "recent pairs before the monitor gives a verdict; in [4, both windows]"},
    )
    monitor_confidence: float = field(
        default=0.95, metadata={"help": "confidence of the monitor's and the shrinkage's intervals, in (0, 1)"},
    )
    shrink_overrated: bool = field(
        default=False,
        metadata={"help": "shrink world-model rewards in score bands the recent anchors show overrated "
                  "(mixing/regions.py)"},
    )
    shrink_bands: int = field(default=5, metadata={"help": "equal bands of the debiased score for shrink_overrated; >= 1"})

    def __post_init__(self) -> None:
        check_weighting(self.weighting, "MixingConfig.weighting")
        _check(0.0 < self.anchor_rate <= 1.0, "anchor_rate", "must lie in (0, 1]", self.anchor_rate)
        _check(self.selection in _SELECTIONS, "selection", f"must be one of {_SELECTIONS}", self.selection)
        _check(self.group_size is None or (type(self.group_size) is int and self.group_size >= 2), "group_size",
               "must be an integer >= 2 (consecutive episodes per group) or None (each group-less episode its own "
               "group)", self.group_size)
        _check(self.window >= 2, "window", "must be at least 2", self.window)
        _check(self.min_pairs >= 2, "min_pairs", "must be at least 2", self.min_pairs)
        _check(self.min_pairs <= self.window, "min_pairs",
               f"must not exceed window={self.window} (the map could never be applied)", self.min_pairs)
        _check(self.calibration in CALIBRATIONS, "calibration", f"must be one of {CALIBRATIONS}", self.calibration)
        _check(self.min_wm_spread >= 0.0, "min_wm_spread", "must be >= 0 (0 keeps every group)", self.min_wm_spread)
        _check(self.task_prior > 0.0, "task_prior", "must be positive", self.task_prior)
        _check(0.0 <= self.ema < 1.0, "ema", "must lie in [0, 1)", self.ema)
        _check(self.weighting in WEIGHTINGS, "weighting", f"must be one of {WEIGHTINGS}", self.weighting)
        _check(0.0 < self.min_rate <= 1.0, "min_rate", "must lie in (0, 1]", self.min_rate)
        _check(0.0 < self.max_rate <= 1.0, "max_rate", "must lie in (0, 1]", self.max_rate)
        _check(self.min_rate <= self.max_rate, "min_rate", f"must not exceed max_rate={self.max_rate}", self.min_rate)
        _check(self.adapt_every >= 1, "adapt_every", "must be at least 1", self.adapt_every)
        _check(4 <= self.monitor_min_pairs <= min(self.monitor_recent, self.monitor_reference), "monitor_min_pairs",
               f"must lie in [4, min(monitor_recent={self.monitor_recent}, monitor_reference={self.monitor_reference})]",
               self.monitor_min_pairs)
        _check(0.0 < self.monitor_confidence < 1.0, "monitor_confidence", "must lie in (0, 1)", self.monitor_confidence)
        _check(self.shrink_bands >= 1, "shrink_bands", "must be at least 1", self.shrink_bands)
        if self.adaptive:
            _check(self.min_rate <= self.anchor_rate <= self.max_rate, "anchor_rate",
                   f"(the starting adaptive rate) must lie in [min_rate={self.min_rate}, max_rate={self.max_rate}]",
                   self.anchor_rate)

    @classmethod
    def make(cls, config: MixingConfig | None = None, **overrides: Any) -> MixingConfig:
        """``config`` (or the defaults) with ``overrides``, any of its fields."""
        if config is not None and not isinstance(config, MixingConfig):
            raise TypeError(f"expected a MixingConfig or None, got {config!r}; a number as the first argument "
                            "(the anchor rate before 0.3) is anchor_rate=")
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown MixingConfig field(s): {sorted(unknown)}")
        return replace(config or cls(), **overrides)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _check(ok: bool, name: str, what: str, value: Any) -> None:
    if not ok:
        raise ValueError(f"MixingConfig.{name} {what}, got {value!r}")
