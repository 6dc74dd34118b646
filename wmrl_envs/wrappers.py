"""Wrappers that replace (``WorldModelWrapper``) or mix (``MixedRewardWrapper``) real rewards with
world-model predictions, for any Gymnasium env.

Text envs (``Text`` action space: the action is code) are never executed under a world model: the
wrapper answers the step itself with the predicted score. Other envs (simulators) still step, but an
episode scored by the world model is truncated at ``wm_horizon`` steps; the saving is the simulator
steps not run.

The world model is a :class:`~wmrl_envs.world_models.base.WorldModel` (``predict(context, action)``,
given ``info["wm_context"]``) or a plain function ``f(obs) -> float in [0, 1]`` (task progress).
Text envs' predictions go through :func:`~wmrl_envs.world_models.screening.safe_predict`: any action,
however malformed, gets a prediction. A *failed* prediction (``Prediction.failed``: an LLM server
down) is never paid: ``on_wm_failure`` says what replaces it, and every step it touches carries
``info["wm_failure"]`` (the reason):

- ``"static"`` (default): the static ``CodeCheckWorldModel`` predicts instead, paid as its raw
  score; ``info["reward_source"] == "world_model_fallback"``;
- ``"execute"`` (text envs): the episode runs for real from this step on (earlier predicted turns
  are replayed first); ``info["reward_source"] == "real"``;
- ``"raise"``: ``RuntimeError``.

Simulated envs have no static fallback: a failed progress prediction raises.

Every step's info keeps the step contract (:class:`~wmrl_envs.contract.StepInfo`): a predicted text
step has ``reward_source``, ``score`` None, ``timed_out`` False (nothing ran), the full ``cost``
(its world-model seconds), ``task_id``, ``group`` and ``prediction``; an executed step is the
env's info with the world-model seconds and the replayed turns' cost added.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.core import ActType, ObsType

from .batching import Coalescer
from .contract import MixingInfo, StepInfo, add_cost, as_info, zero_cost
from .mixing import MixingConfig, OnlineDebiaser
from .mixing.state import MixingState
from .world_models.base import Prediction, WorldModel
from .world_models.screening import safe_predict, safe_predict_batch

WorldModelLike = WorldModel | Callable[[Any], float]
ON_WM_FAILURE = ("static", "execute", "raise")
Step = tuple[ObsType, float, bool, bool, dict[str, Any]]
"""A step's 5-tuple as the wrappers return it (info: the step contract, ``wmrl_envs/contract.py``)."""


def _predict(world_model: WorldModelLike, context: dict, action: Any, code: bool = True) -> Prediction:
    """The world model's prediction; for code (``code=True``) guarded, so any text gets one."""
    if hasattr(world_model, "predict"):
        return safe_predict(world_model, context, action) if code else world_model.predict(context, action)
    t0 = time.perf_counter()
    score = float(world_model(action))
    if not np.isfinite(score):
        raise ValueError(f"the world-model function returned {score!r}: it must return a number in [0, 1]")
    return Prediction(score=min(1.0, max(0.0, score)), cost_s=time.perf_counter() - t0)


def _predict_pairs(world_model: WorldModel, pairs: list[tuple[dict, Any]]) -> list[Prediction]:
    """Guarded predictions of ``(context, code)`` pairs in one ``predict_batch`` call."""
    return safe_predict_batch(world_model, [c for c, _ in pairs], [a for _, a in pairs])


def _add_wm_cost(info: dict[str, Any], seconds: float) -> None:
    """Add world-model seconds to ``info["cost"]``, filling in the contract's keys."""
    info["cost"] = add_cost(info.get("cost"), zero_cost(wm_s=seconds))


def _canonical(x: Any) -> bytes:
    """``x`` (text, numbers, arrays, and dicts, lists or tuples of them) as bytes, each part tagged
    with its kind and length, so that different values give different bytes."""
    if isinstance(x, str):
        data = b"s" + x.encode()
    elif isinstance(x, bytes):
        data = b"b" + x
    elif isinstance(x, dict):
        data = b"d" + b"".join(_canonical(str(k)) + _canonical(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0])))
    elif isinstance(x, (list, tuple)):
        data = b"l" + b"".join(_canonical(v) for v in x)
    else:
        a = np.asarray(x)
        data = b"o" + repr(x).encode() if a.dtype == object else b"a" + f"{a.dtype.str}{a.shape}".encode() + a.tobytes()
    return len(data).to_bytes(8, "little") + data


def _check_world_model(world_model: Any) -> None:
    if not (hasattr(world_model, "predict") or callable(world_model)):
        raise TypeError(
            f"world_model must have predict(context, action) or be a function f(obs) -> float, "
            f"got {type(world_model).__name__}"
        )


class _PredictingWrapper(gym.Wrapper[ObsType, ActType, ObsType, ActType]):
    """What both wrappers share: context tracking, prediction, the never-execute text step, and
    the fallback when the world model fails. Observations and actions are the env's (a text env's
    predicted observation is text, as its real ones are)."""

    def __init__(self, env: gym.Env[ObsType, ActType], world_model: WorldModelLike, wm_horizon: int | None = None,
                 on_wm_failure: str = "static") -> None:
        super().__init__(env)
        _check_world_model(world_model)
        if wm_horizon is not None and int(wm_horizon) < 1:
            raise ValueError(f"wm_horizon must be a positive number of steps, got {wm_horizon}")
        if on_wm_failure not in ON_WM_FAILURE:
            raise ValueError(f"on_wm_failure must be one of {ON_WM_FAILURE}, got {on_wm_failure!r}")
        self.world_model = world_model
        # Copies of this wrapper stepped from threads share this: their predictions go out in batches.
        self._batched = (Coalescer(functools.partial(_predict_pairs, world_model))
                         if isinstance(world_model, WorldModel) and hasattr(world_model, "predict_batch") else None)
        self.wm_horizon = None if wm_horizon is None else int(wm_horizon)
        self.on_wm_failure = on_wm_failure
        self.is_text = isinstance(env.action_space, spaces.Text)
        self.wm_failures = 0  # failed predictions seen by this wrapper
        self._static: WorldModel | None = None
        self._context: dict[str, Any] = {}
        self._first_obs: Any = None
        self._reset_info: dict[str, Any] = {}
        self._t = 0
        self._progress = 0.0
        self._predicted_actions: list = []  # this episode's predicted turns, replayed if it executes
        self._executing = False

    def _begin(self, obs: ObsType, info: dict[str, Any]) -> None:
        self._context = dict(info.get("wm_context") or {})
        self._first_obs, self._reset_info, self._t = obs, info, 0
        self._progress = 0.0
        self._predicted_actions, self._executing = [], False

    def _predict_code(self, action: ActType) -> Prediction:
        """The guarded prediction of one text step, batched with concurrent copies' steps."""
        if self._batched is None:
            return _predict(self.world_model, self._context, action)
        return self._batched([(self._context, action)])[0]

    def _failed(self, pred: Prediction) -> None:
        """Count a failed prediction; raise if ``on_wm_failure="raise"``."""
        self.wm_failures += 1
        if self.on_wm_failure == "raise":
            raise RuntimeError(f"the world model failed: {pred.failed} "
                               "(pass on_wm_failure='static' or 'execute' to fall back instead)")

    def _static_model(self) -> WorldModel:
        if self._static is None:
            from .world_models.static import CodeCheckWorldModel

            self._static = CodeCheckWorldModel()
        return self._static

    def _text_turn(
        self, action: ActType, reward_of: Callable[[float], float]
    ) -> tuple[ObsType, float, bool, bool, dict[str, Any], Prediction | None]:
        """One text step: predicted, or on a failed prediction its fallback. Returns the step's
        5-tuple and the world model's prediction (None when it failed or the episode executes)."""
        if self._executing:
            return (*self._execute(action), None)
        pred = self._predict_code(action)
        if pred.failed is None:
            return (*self._predicted_text_step(action, pred, reward_of), pred)
        self._failed(pred)
        if self.on_wm_failure == "execute":
            self._executing = True
            obs, reward, terminated, truncated, info = self._execute(action)
            _add_wm_cost(info, pred.cost_s)
        else:
            fallback = safe_predict(self._static_model(), self._context, action)
            obs, reward, terminated, truncated, info = self._predicted_text_step(action, fallback, float)
            info["reward_source"] = "world_model_fallback"
            _add_wm_cost(info, pred.cost_s)
        info["wm_failure"] = pred.failed
        return obs, reward, terminated, truncated, info, None

    def _execute(self, action: ActType) -> Step[ObsType]:
        """Step the real env; the first time in an episode, replay its predicted turns before
        (their cost is this step's)."""
        replayed = [self.env.step(a)[4].get("cost") for a in self._predicted_actions]
        self._predicted_actions = []
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._t += 1
        info = {**info, "cost": add_cost(info.get("cost"), *replayed), "reward_source": "real"}
        return obs, float(reward), terminated, truncated, info

    def _predicted_text_step(self, action: ActType, pred: Prediction, reward_of: Callable[[float], float]) -> Step[ObsType]:
        """Answer a text step from a prediction alone: the env does not run, so nothing times out."""
        self._predicted_actions.append(action)
        self._t += 1
        max_turns = int(self._context.get("max_turns", 1))
        obs = f"{self._first_obs}\n\n## World-model feedback (turn {self._t}/{max_turns})\n{pred.feedback}"
        info: StepInfo = {
            "task_id": self._reset_info.get("task_id"),
            "group": self._reset_info.get("group"),
            "reward_source": "world_model",
            "score": None,
            "timed_out": False,
            "cost": zero_cost(wm_s=pred.cost_s),
            "prediction": {
                "score": pred.score,
                "checks": {k: v.p_pass for k, v in pred.checks.items()},
            },
        }
        return cast(ObsType, obs), reward_of(pred.score), self._t >= max_turns, False, as_info(info)

    def _predicted_progress(self, obs: ObsType, info: dict[str, Any]) -> Prediction:
        self._context = dict(info.get("wm_context") or self._context)
        return self._progress_of(obs)

    def _progress_of(self, obs: ObsType) -> Prediction:
        """Predicted progress of a simulated env; there is no fallback for a failed one."""
        pred = _predict(self.world_model, self._context, obs, code=False)
        if pred.failed is not None:
            self._failed(pred)
            raise RuntimeError(f"the progress world model failed: {pred.failed} "
                               "(on_wm_failure fallbacks exist for text envs only)")
        return pred


class WorldModelWrapper(_PredictingWrapper[ObsType, ActType]):
    """Every step is scored by the world model.

    Text envs are never executed: ``step`` returns the reset observation plus the world model's
    feedback, reward = predicted score, ``terminated`` after ``wm_context["max_turns"]`` turns.
    Simulated envs still step; reward = progress gained this step (``f(obs_t) - f(obs_{t-1})``),
    and the episode is truncated after ``wm_horizon`` steps.

    Args:
        env: any Gymnasium env.
        world_model: a ``WorldModel`` or a function ``f(obs) -> float in [0, 1]``.
        wm_horizon: for simulated envs, steps before truncation (None: the env's own end).
        on_wm_failure: ``"static"``, ``"execute"`` or ``"raise"``: what replaces a failed
            prediction (module docstring); ``wm_failures`` counts them.
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsType, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._begin(obs, info)
        if not self.is_text:
            self._progress = self._progress_of(obs).score
        return obs, info

    def step(self, action: ActType) -> Step[ObsType]:
        if self.is_text:
            obs, reward, terminated, truncated, info, _ = self._text_turn(action, float)
            return obs, reward, terminated, truncated, info
        obs, _, terminated, truncated, info = self.env.step(action)
        pred = self._predicted_progress(obs, info)
        reward = pred.score - self._progress
        self._progress = pred.score
        self._t += 1
        truncated = truncated or (self.wm_horizon is not None and self._t >= self.wm_horizon and not terminated)
        info = dict(info)
        info["real_score"] = info.get("score")
        info.update(reward_source="world_model", score=None, progress=pred.score)
        _add_wm_cost(info, pred.cost_s)
        return obs, reward, terminated, truncated, info


@dataclass(frozen=True)
class FinishedEpisode:
    """What ``real_score=`` sees of a finished anchor episode of a simulated env."""

    episode_return: float  # the sum of the env's own rewards
    length: int  # steps taken
    final_info: dict  # the last step's info

    @property
    def success(self) -> bool | None:
        """``info["success"]`` of the last step, where the env reports one."""
        value = self.final_info.get("success")
        return None if value is None else bool(value)


RealScore = str | tuple[float, float] | Callable[[FinishedEpisode], float]
_REAL_SCORES = ("auto", "success", "return")


def _check_real_score(how: Any) -> None:
    """A ``ValueError`` naming the choices unless ``how`` is a ``real_score`` (class docstring)."""
    if isinstance(how, tuple):
        if not (len(how) == 2 and all(isinstance(x, (int, float)) for x in how) and how[0] < how[1]):
            raise ValueError(f"real_score=(lo, hi) is the return's range and needs lo < hi, got {how!r}")
    elif not (callable(how) or how in _REAL_SCORES):
        raise ValueError(f"real_score must be one of {_REAL_SCORES}, a return range (lo, hi) or a function "
                         f"f(FinishedEpisode) -> float, got {how!r}")


class MixedRewardWrapper(_PredictingWrapper[ObsType, ActType]):
    """WMRL per episode: anchor groups run for real *and* through the world model; the anchor pairs
    train an online isotonic map; every other episode is paid the debiased prediction and never runs.
    The wrapper tags episodes and feeds them to the mixer, its ``state`` (a
    :class:`~wmrl_envs.mixing.state.MixingState`), which a trainer receives to ask for advantages.

    Groups come from ``reset(options={"group": key})`` (the env's ``info["group"]``); whole groups are
    anchors or not. A trainer also gives each episode its place in the group (``"member": i``), the
    order in which the mixer answers its ``advantages``. An episode reset without a group key (SB3's
    automatic resets, any group-less trainer) is grouped by the mixer's ``MixingConfig.group_size``:
    with ``group_size=G``, each wrapper (env copy) puts its consecutive group-less episodes into groups of G, so
    inverse-variance weights exist once a group has completed; without it, each episode is its
    own group and ``weight`` stays None.
    Consecutive episodes rather than reset seeds, because SB3 seeds only a copy's first reset
    (``seed + i`` for copy i) and passes ``seed=None`` afterwards; a group of one copy's
    consecutive episodes is also sampled by one policy version. Such a group mixes whatever tasks
    the env resets to: it is a unit for the variance estimates, not a GRPO prompt group. Its key
    is ``s<first seed>-g<n>`` when the copy's first reset had a seed (a seeded rerun repeats keys,
    anchor decisions and pair ids, so a replay adds no pair twice) and a random tag otherwise. An episode's world-model
    score ``s`` is the prediction at its last text turn, or
    the predicted progress at ``wm_horizon`` for simulated envs. Its real score ``y``:

    - text envs: the env's final reward;
    - simulated envs: ``real_score`` of the finished episode (anchor episodes run to the env's own
      end). ``"auto"`` (default) is ``info["success"]`` where the env reports it (LIBERO), else
      the episode return normalised to [0, 1] by the running range of anchor returns;
      ``"success"`` requires ``info["success"]``; ``"return"`` always uses the return normalised
      by the running range, ``(lo, hi)`` the return normalised by that range; a function
      ``f(FinishedEpisode) -> float`` is yours.

    Non-anchor episodes are paid ``f(s)`` at their last step, where ``f`` is the current map. The
    map stays the identity until the anchors' real scores vary (``stats()["calib_reason"]``): WMRL
    starts from a policy that sometimes succeeds (the paper's SFT policy); before that, rewards
    are the raw predictions.

    Every step's ``info`` has ``reward_source`` (``"real"`` on anchor episodes, else
    ``"world_model"``, or what the fallback of a failed prediction says), ``cost`` (simulated envs:
    one simulator step and its seconds unless the env reports its own) and ``mixing``: ``anchor``,
    ``group``, ``wm_raw``, ``wm_debiased``, ``weight`` (the inverse-variance multiplier of the
    episode's type the mixer last applied: to a trainer's last batch when a trainer asks it for
    advantages, else to the last completed group of two or more episodes; None before any, always
    None for group-less episodes without ``group_size`` and no trainer), ``residual`` (an anchor
    pair's ``real - f(wm_raw)`` with the map before the pair, else None) and ``calibrated``
    (whether the debiasing map is active), reported only: trainers ask the mixer by group
    (:meth:`~wmrl_envs.mixing.state.MixingState.advantages`), which recorded them. At an
    episode's end it also has ``monitor``: the exploitation monitor's ``alarm``, ``calibrated``, recent ``calib_error``,
    ``overrating`` and ``spearman``, its ``pairs`` and the current ``anchor_rate``
    (``mixing/monitor.py``; the full report is ``stats()["monitor"]``). A mixer with
    ``MixingConfig(adaptive=True)`` lets the monitor move the anchor rate (``mixing/controller.py``).

    Args:
        env: any Gymnasium env.
        world_model: a ``WorldModel`` or a function ``f(obs) -> float in [0, 1]``.
        mixer: the run's :class:`~wmrl_envs.mixing.state.MixingState`, shared with the other env
            copies and given to the trainer (``MixingState(config, state_path=...)``, or
            ``MixingState.shared(path, config)`` for one state per file in a process: a JSON
            snapshot and an append-only pair log, so a killed run loses no pair and a resumed one
            adds none twice); a :class:`~wmrl_envs.mixing.MixingConfig` for a new in-memory state
            of its own; None: the default configuration. Every mixing setting lives there.
        wm_horizon: for simulated envs, steps a non-anchor episode runs.
        real_score: how an anchor episode of a simulated env is scored (see above).
        on_wm_failure: ``"static"``, ``"execute"`` or ``"raise"``: what replaces a failed prediction
            (module docstring). A failed prediction never feeds the debiaser (an anchor episode
            with one adds no pair); ``stats()["wm_failures"]`` counts them across the state's
            wrappers. A static fallback is paid the static model's raw score: the debiasing map
            was fitted on the world model's scale, not the static model's.
    """

    def __init__(
        self,
        env: gym.Env[ObsType, ActType],
        world_model: WorldModelLike,
        mixer: MixingState | MixingConfig | None = None,
        *,
        wm_horizon: int | None = None,
        real_score: RealScore = "auto",
        on_wm_failure: str = "static",
    ) -> None:
        super().__init__(env, world_model, wm_horizon, on_wm_failure)
        _check_real_score(real_score)
        if not isinstance(mixer, (MixingState, MixingConfig, type(None))):
            raise TypeError(f"mixer must be a MixingState, a MixingConfig or None, got {mixer!r}; since 0.3 every "
                            "mixing setting lives there: MixedRewardWrapper(env, wm, MixingConfig(anchor_rate=...))")
        self.state = mixer if isinstance(mixer, MixingState) else MixingState(mixer)
        self.real_score = real_score
        self._tag = secrets.token_hex(4)  # group keys of an env without groups: unique per wrapper
        self._groupless = 0  # episodes of this copy reset without a group key
        self._group = ""
        self._anchor = False
        self._task: str | None = None  # the episode's task id (reset info), for per-task calibration
        self._seed: int | None = None
        self._member: int | None = None  # the episode's place in the trainer's group (reset option "member")
        self._identity: Any = None  # an anchor episode's hash: its reset seed or observation, its actions
        self._s: float | None = None
        self._return = 0.0
        if not self.is_text and real_score == "auto" and not getattr(env.unwrapped, "reports_success", False):
            warnings.warn(
                f"{env.unwrapped.__class__.__name__} does not declare info['success']: unless it reports one, "
                "an anchor episode's real score is its return normalised by the running range of anchor returns; "
                "pass real_score=(lo, hi) (the return's range) or a function of the FinishedEpisode to define it",
                UserWarning,
                stacklevel=2,
            )

    @property
    def debiaser(self) -> OnlineDebiaser:
        return self.state.debiaser

    def stats(self) -> dict:
        return {"wm_failures": 0, **self.state.stats()}

    def _failed(self, pred: Prediction) -> None:
        with self.state.lock:
            self.state.counts["wm_failures"] = self.state.counts.get("wm_failures", 0) + 1
        super()._failed(pred)

    def state_dict(self) -> dict:
        return self.state.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.state.load_state_dict(state)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[ObsType, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._begin(obs, info)
        key = info.get("group", (options or {}).get("group"))
        self._group = str(key) if key is not None else self._groupless_key(seed)
        member = (options or {}).get("member")
        self._member = None if member is None else int(member)
        self._anchor = self.state.begin_episode(self._group, self.group_size if key is None else None,
                                                member=self._member)
        self._task = None if info.get("task_id") is None else str(info["task_id"])
        if self._task is None and self.state.config.calibration == "per-task":
            raise ValueError("MixingConfig(calibration='per-task') corrects the map per task, and this env's reset info "
                             "has no 'task_id': put one there (reset options or the env), or use calibration='pooled'")
        self._seed, self._identity = seed, None
        if self._anchor:  # its pair is named by what makes it unique in its group (mixing/state.py)
            self._identity = hashlib.blake2b(_canonical(obs if seed is None else seed), digest_size=8)
        self._s = None
        self._return = 0.0
        return obs, info

    @property
    def group_size(self) -> int | None:
        """G: this copy's consecutive group-less episodes per group (the mixer's ``MixingConfig.group_size``)."""
        return self.state.config.group_size

    def _transform(self, wm_score: float) -> float:
        """The reward of this episode's world-model score (through its task's map)."""
        return self.state.transform(wm_score, self._task)

    def _groupless_key(self, seed: int | None) -> str:
        """The group key of an episode reset without one (class docstring)."""
        n, self._groupless = self._groupless, self._groupless + 1
        if self.group_size is None:
            return f"{self._tag}-episode-{self.state.counts['episodes']}"
        if n == 0 and seed is not None:
            self._tag = f"s{seed}"
        return f"{self._tag}-g{n // self.group_size}"

    def step(self, action: ActType) -> Step[ObsType]:
        if self._identity is not None:
            self._identity.update(_canonical(action))
        if self.is_text:
            return self._text_step(action)
        return self._sim_step(action)

    def _episode(self) -> str | None:
        """The anchor episode's identity within its group: ``s<seed>-`` and a hash of the seed (or,
        without one, the reset observation) and every action."""
        if self._identity is None:
            return None
        digest = self._identity.hexdigest()
        return digest if self._seed is None else f"s{self._seed}-{digest}"

    def _count(self, real: bool) -> None:
        with self.state.lock:
            self.state.counts["real_steps" if real else "predicted_steps"] += 1

    def _text_step(self, action: ActType) -> Step[ObsType]:
        if not self._anchor:
            obs, reward, terminated, truncated, info, pred = self._text_turn(action, self._transform)
            self._count(real=info["reward_source"] == "real")  # an executed fallback is a real step
            return self._finish(obs, reward, terminated, truncated, info, None if pred is None else pred.score, None)
        return self._anchor_text_step(action)

    def _anchor_text_step(self, action: ActType) -> Step[ObsType]:
        """An anchor's text step: run for real, and predicted too (the pair trains the debiaser)."""
        self._count(real=True)
        pred = self._predict_code(action)
        if pred.failed is not None:
            self._failed(pred)
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        _add_wm_cost(info, pred.cost_s)
        if pred.failed is not None:
            info["wm_failure"] = pred.failed
        real = float(reward) if (terminated or truncated) else None
        wm_score = None if pred.failed is not None else pred.score
        observe = getattr(self.world_model, "observe", None)
        if real is not None and observe is not None:  # a world model that learns from anchors
            observe(self._context, action, real)
        return self._finish(obs, float(reward), terminated, truncated, info, wm_score, real)

    def _sim_step(self, action: ActType) -> Step[ObsType]:
        t0 = time.perf_counter()
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        if "cost" not in info:  # the env does not count its own simulator time
            info["cost"] = zero_cost(sim_steps=1, sim_s=time.perf_counter() - t0)
        self._t += 1
        self._return += float(env_reward)
        self._count(real=self._anchor)
        at_horizon = self.wm_horizon is not None and self._t == self.wm_horizon
        if not self._anchor:
            truncated = truncated or at_horizon
        done = terminated or truncated
        if self._s is None and (at_horizon or done):  # the episode's world-model score
            pred = self._predicted_progress(obs, info)
            self._s = pred.score
            _add_wm_cost(info, pred.cost_s)
        info["progress"] = self._s
        wm_score = self._s if done else None
        if self._anchor:
            info["reward_source"] = "real"
            real = self._episode_score(FinishedEpisode(self._return, self._t, info)) if done else None
            return self._finish(obs, 0.0, terminated, truncated, info, wm_score, real)
        reward = self._transform(wm_score) if wm_score is not None else 0.0  # not None iff done
        info.update(reward_source="world_model", real_score=info.get("score"), score=None)
        return self._finish(obs, reward, terminated, truncated, info, wm_score, None)

    def _episode_score(self, episode: FinishedEpisode) -> float:
        """The real score of a finished anchor episode; a bad value is an error naming its source."""
        how = self.real_score
        if how == "success" or (how == "auto" and episode.success is not None):
            if episode.success is None:
                raise ValueError(
                    f"real_score='success' but the env's last info of episode {self._group!r} has no 'success'"
                )
            return float(episode.success)
        if callable(how):
            name = getattr(how, "__name__", repr(how))
            try:
                value = how(episode)
            except Exception as e:
                raise RuntimeError(f"real_score function {name} failed on episode {self._group!r}: {e}") from e
            if (isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer))
                    or not np.isfinite(value)):
                raise ValueError(
                    f"real_score function {name} returned {value!r} for episode {self._group!r}: "
                    "it must return a finite number"
                )
            return float(value)
        return self.state.normalised_return(episode.episode_return, how if isinstance(how, tuple) else None)

    def _finish(self, obs: ObsType, reward: float, terminated: bool, truncated: bool, info: dict[str, Any],
                wm_score: float | None, real: float | None) -> Step[ObsType]:
        """Pay anchors their real score, record the episode, and describe the mixing."""
        if real is not None:
            reward = real
        residual = None
        if terminated or truncated:
            residual = self.state.end_episode(self._group, reward, wm_score, real, self._episode(), self._task,
                                              self._member)
        mixing: MixingInfo = {
            "anchor": self._anchor,
            "group": self._group,
            "wm_raw": wm_score,
            "wm_debiased": None if wm_score is None else self._transform(wm_score),
            "weight": self.state.weight(self._anchor),
            "residual": residual,
            "calibrated": self.state.calibrated,
        }
        if terminated or truncated:
            mixing["monitor"] = self.state.monitor_summary()
        info["mixing"] = mixing
        return obs, reward, terminated, truncated, info
