"""The step contract of wmrl's envs and wrappers, as types that mypy checks.

As in Gymnasium, ``info`` is a plain dict at runtime and ``step``/``reset`` signatures say
``dict[str, Any]``; these TypedDicts name the keys a trainer may read and what they mean, so that
it reads everything from ``info`` and never from env internals (``env.unwrapped.last_run`` is not
set by a replayed step; ``info["timed_out"]`` is, because the replay returns the recorded info).
Envs and wrappers build the contract part of an info as a :class:`StepInfo`
(:func:`as_info` hands it to Gymnasium); trainers view a step's info as one with
:func:`step_info`. Keys outside the contract (an env's own: ``feedback``, ``percentile``, ...) may
sit beside them.

- :class:`Cost` (``info["cost"]``, defined in :mod:`wmrl_envs.costs`) with :func:`zero_cost` and
  :func:`add_cost`;
- :class:`StepInfo`: a step's info;
- :class:`WmContext`: a text env's ``reset`` ``info["wm_context"]``, what a world model may know of
  the task, with the ``limits`` the env will enforce; :class:`ProgressContext` is a simulated
  env's (LIBERO).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

from wmrl_envs.costs import COST_KEYS, ZERO_COST, Cost, CostKey, add_cost, zero_cost

__all__ = [
    "COST_KEYS", "ZERO_COST", "Cost", "CostKey", "FileSchema", "MixingInfo", "ProgressContext", "RewardSource",
    "RunSummary", "StepInfo", "WmContext", "add_cost", "as_info", "step_info", "zero_cost",
]

RewardSource = Literal["real", "world_model", "world_model_fallback"]
"""Where a step's reward came from: the env's run, a world-model prediction, or (the prediction
failed) the static fallback model's."""


class RunSummary(TypedDict):
    """The sandboxed run behind a text env's step (the full record is ``env.unwrapped.last_run``, a
    ``RunResult``, which a replayed step does not set)."""

    backend: str  # the sandbox backend that ran it ("warm", "bwrap", ...)
    exit_code: int | None  # the shell's: 128 + N for death by signal N; None if it never ran
    wall_s: float  # wall seconds
    cpu_s: float | None  # the run's own CPU seconds (None: not measured)
    startup_cpu_s: float  # shared start-up CPU charged to the run (the warm zygote's)
    cpu_limit_hit: bool  # stopped by its CPU-seconds limit (``timed_out`` covers wall or CPU)
    oom_killed: bool  # killed for its memory


class MixingInfo(TypedDict):
    """``info["mixing"]`` under ``MixedRewardWrapper`` (its docstring has the details)."""

    anchor: bool  # the episode runs for real (and through the world model)
    group: str  # the episode's group key
    wm_raw: float | None  # the world model's raw score of the episode (at its end)
    wm_debiased: float | None  # ``wm_raw`` through the debiasing map
    weight: float | None  # the inverse-variance multiplier of the episode's type last applied
    residual: float | None  # an anchor pair's ``real - f(wm_raw)``, with the map before the pair
    calibrated: bool  # whether the debiasing map was active
    monitor: NotRequired[dict[str, Any]]  # at an episode's end: the exploitation monitor's summary


class StepInfo(TypedDict, total=False):
    """The keys of a step's ``info`` that trainers read; which env or wrapper sets which is said
    in their docstrings."""

    status: str  # a text env's verdict: "ok", "invalid_action", "run_failed", "invalid_submission", "sandbox_error"
    timed_out: bool  # the run hit its wall or CPU time limit (False for a predicted step, which never runs)
    cost: Cost  # what the step spent, predictions and replayed turns included
    reward_source: RewardSource  # where the reward came from
    score: float | None  # the real metric value of the step's run; None if not measured or predicted
    metric: str  # the name of ``score``'s metric (text envs)
    mixing: MixingInfo  # under MixedRewardWrapper: the episode's mixing
    wm_failure: str  # present when the world model failed to predict the step: why
    replayed: bool  # under ReplayWrapper: answered from the outcome table (the recorded info, cost included)
    run: RunSummary | None  # text envs: the sandboxed run behind the step (None: no program ran)
    task_id: Any  # the episode's task (a str for text envs, an int for LIBERO)
    group: str | None  # the episode's group key (``reset(options={"group": ...})``)
    prediction: dict[str, Any]  # a predicted text step: the world model's ``score`` and per-check ``checks``
    real_score: float | None  # a world-model-scored simulated step: the env's own ``score``
    progress: float | None  # simulated envs under a world model: the predicted task progress


class FileSchema(TypedDict):
    """One public data file as a text env describes it (``WmContext["files"]``)."""

    n_rows: int
    columns: dict[str, str]  # column -> dtype name
    nan_fraction: dict[str, float]  # column -> share of missing values
    n_unique: NotRequired[dict[str, int]]  # column -> distinct non-missing values (one-hot width)
    # test files: text column -> distinct values the matching train file lacks (0: none unseen)
    unseen_in_test: NotRequired[dict[str, int]]


class WmContext(TypedDict, total=False):
    """What a text env tells a world model about its task, in ``reset`` ``info["wm_context"]`` (all
    keys JSON-serializable; ``wmrl_envs.world_models.TaskContext`` is this type)."""

    task_id: str
    description: str
    task_type: str  # "binary" | "multiclass" | "regression"
    metric: str  # e.g. "roc_auc"
    higher_is_better: bool
    target: str
    id_column: str
    files: dict[str, FileSchema]  # public files under data/, e.g. "train.csv"
    submission_columns: list[str]
    limits: dict[str, float]  # the limits the env will enforce on a run (wall_s, cpu_s, memory_mb), overrides included
    max_turns: int
    suite: str  # the env's suite: "offline", "dsbench" or a data folder's absolute path
    reward_mode: str  # how the env pays a graded score ("percentile", "rpg", ...)
    size: int  # embedded suites built at another size (``size=``): source rows kept


class ProgressContext(TypedDict):
    """A simulated env's ``info["wm_context"]`` (LIBERO), refreshed in every step's info."""

    env: str  # the env id
    task_id: int
    task_name: str
    instruction: str  # the language instruction
    init_state: int  # which of the task's initial states the episode started from
    atoms: list[dict[str, Any]]  # the BDDL goal atoms with ``holds`` and ``distance``
    step: int
    max_steps: int


def as_info(info: StepInfo) -> dict[str, Any]:
    """``info`` typed as Gymnasium's info (the same object: a TypedDict is a plain dict at runtime)."""
    return cast(dict[str, Any], info)


def step_info(info: dict[str, Any]) -> StepInfo:
    """A step's ``info`` viewed as the contract (no copy, no check: keys outside it are kept)."""
    return cast(StepInfo, info)
