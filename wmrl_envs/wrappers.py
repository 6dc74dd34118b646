"""Wrappers that replace (``WorldModelWrapper``) or mix (``MixedRewardWrapper``) real rewards with
world-model predictions, for any Gymnasium env.

Text envs (``Text`` action space: the action is code) are never executed under a world model: the
wrapper answers the step itself with the predicted score. Other envs (simulators) still step, but an
episode scored by the world model is truncated at ``wm_horizon`` steps; the saving is the simulator
steps not run.

The world model is a :class:`~wmrl_envs.world_models.base.WorldModel` (``predict(context, action)``,
given ``info["wm_context"]``) or a plain function ``f(obs) -> float in [0, 1]`` (task progress).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .mixing import AnchorSampler, InverseVarianceWeights, OnlineDebiaser
from .world_models.base import Prediction, WorldModel

WorldModelLike = WorldModel | Callable[[Any], float]

_ZERO_COST = {"exec_s": 0.0, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 0, "sim_s": 0.0}


def _predict(world_model: WorldModelLike, context: dict, action: Any) -> Prediction:
    if hasattr(world_model, "predict"):
        return world_model.predict(context, action)
    t0 = time.perf_counter()
    score = float(world_model(action))
    if not np.isfinite(score):
        raise ValueError(f"the world-model function returned {score!r}: it must return a number in [0, 1]")
    return Prediction(score=min(1.0, max(0.0, score)), cost_s=time.perf_counter() - t0)


def _add_wm_cost(info: dict, seconds: float) -> None:
    """Add world-model seconds to ``info["cost"]``, filling in the contract's keys."""
    info["cost"] = {**_ZERO_COST, **(info.get("cost") or {})}
    info["cost"]["wm_s"] += seconds


def _check_world_model(world_model: Any) -> None:
    if not (hasattr(world_model, "predict") or callable(world_model)):
        raise TypeError(
            f"world_model must have predict(context, action) or be a function f(obs) -> float, "
            f"got {type(world_model).__name__}"
        )


class _PredictingWrapper(gym.Wrapper):
    """What both wrappers share: context tracking, prediction, and the never-execute text step."""

    def __init__(self, env: gym.Env, world_model: WorldModelLike, wm_horizon: int | None = None) -> None:
        super().__init__(env)
        _check_world_model(world_model)
        if wm_horizon is not None and int(wm_horizon) < 1:
            raise ValueError(f"wm_horizon must be a positive number of steps, got {wm_horizon}")
        self.world_model = world_model
        self.wm_horizon = None if wm_horizon is None else int(wm_horizon)
        self.is_text = isinstance(env.action_space, spaces.Text)
        self._context: dict = {}
        self._first_obs: Any = None
        self._reset_info: dict = {}
        self._t = 0
        self._progress = 0.0

    def _begin(self, obs: Any, info: dict) -> None:
        self._context = dict(info.get("wm_context") or {})
        self._first_obs, self._reset_info, self._t = obs, info, 0
        self._progress = 0.0

    def _predicted_text_step(self, action: Any, reward_of: Callable[[float], float]):
        """Answer a text step from the world model alone: the env does not run."""
        pred = _predict(self.world_model, self._context, action)
        self._t += 1
        max_turns = int(self._context.get("max_turns", 1))
        obs = f"{self._first_obs}\n\n## World-model feedback (turn {self._t}/{max_turns})\n{pred.feedback}"
        info = {
            "task_id": self._reset_info.get("task_id"),
            "group": self._reset_info.get("group"),
            "reward_source": "world_model",
            "score": None,
            "cost": {**_ZERO_COST, "wm_s": pred.cost_s},
            "prediction": {
                "score": pred.score,
                "checks": {k: v.p_pass for k, v in pred.checks.items()},
            },
        }
        return obs, reward_of(pred.score), self._t >= max_turns, False, info, pred

    def _predicted_progress(self, obs: Any, info: dict) -> Prediction:
        self._context = dict(info.get("wm_context") or self._context)
        return _predict(self.world_model, self._context, obs)


class WorldModelWrapper(_PredictingWrapper):
    """Every step is scored by the world model.

    Text envs are never executed: ``step`` returns the reset observation plus the world model's
    feedback, reward = predicted score, ``terminated`` after ``wm_context["max_turns"]`` turns.
    Simulated envs still step; reward = progress gained this step (``f(obs_t) - f(obs_{t-1})``),
    and the episode is truncated after ``wm_horizon`` steps.

    Args:
        env: any Gymnasium env.
        world_model: a ``WorldModel`` or a function ``f(obs) -> float in [0, 1]``.
        wm_horizon: for simulated envs, steps before truncation (None: the env's own end).
    """

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._begin(obs, info)
        if not self.is_text:
            self._progress = _predict(self.world_model, self._context, obs).score
        return obs, info

    def step(self, action: Any):
        if self.is_text:
            obs, reward, terminated, truncated, info, _ = self._predicted_text_step(action, float)
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


class MixingState:
    """The mixing state behind one or more ``MixedRewardWrapper`` s: anchor decisions, the
    debiaser, the weight estimates and counts. Thread-safe, so env copies stepped from a thread
    pool can share one (pass ``state=`` to each wrapper).

    Args: as ``MixedRewardWrapper``.
    """

    def __init__(
        self,
        anchor_rate: float = 0.1,
        seed: int = 0,
        state_path: str | os.PathLike | None = None,
        selection: str = "hash",
        window: int = 4096,
        min_pairs: int = 16,
        debias: bool = True,
    ) -> None:
        self.sampler = AnchorSampler(anchor_rate, seed, selection)
        self.debiaser = OnlineDebiaser(window, min_pairs)
        self.weighter = InverseVarianceWeights()
        self.debias = bool(debias)
        self.state_path = None if state_path is None else Path(state_path)
        self.anchor_of: dict[str, bool] = {}
        self.open_groups: dict[str, list[float]] = {}
        self.weights = None
        self.counts = {"episodes": 0, "anchor_episodes": 0, "real_steps": 0, "predicted_steps": 0}
        self.lock = threading.RLock()
        if self.state_path is not None and self.state_path.exists():
            self.load_state_dict(json.loads(self.state_path.read_text()))

    def begin_episode(self, key: str) -> bool:
        """Count an episode of group ``key``; fold completed groups into the weights; is it an anchor?"""
        with self.lock:
            if key not in self.anchor_of:
                self.anchor_of[key] = bool(self.sampler.select([key])[0])
                self._close_groups(keep=key)
            anchor = self.anchor_of[key]
            self.counts["episodes"] += 1
            self.counts["anchor_episodes"] += int(anchor)
            return anchor

    def _close_groups(self, keep: str) -> None:
        """A new group started: the open ones are complete, fold them into the weight estimate."""
        done = {k: r for k, r in self.open_groups.items() if k != keep}
        if not done:
            return
        centred = np.concatenate([np.asarray(r) - np.mean(r) for r in done.values()])
        kinds = np.concatenate([np.full(len(r), self.anchor_of[k]) for k, r in done.items()])
        self.weights = self.weighter.update(centred, kinds)
        self.open_groups = {k: r for k, r in self.open_groups.items() if k == keep}

    def transform(self, s: float) -> float:
        with self.lock:
            return float(self.debiaser.transform([s])[0]) if self.debias else s

    def end_episode(self, key: str, reward: float, wm_score: float | None, real: float | None) -> None:
        """Keep the episode's reward for its group; an anchor pair goes to the debiaser and disk."""
        with self.lock:
            self.open_groups.setdefault(key, []).append(float(reward))
            if real is not None and wm_score is not None:
                self.debiaser.update([wm_score], [real])
                self.save()

    def weight(self, anchor: bool) -> float | None:
        """The current inverse-variance advantage multiplier of anchor or world-model episodes."""
        w = self.weights
        return None if w is None else (w.c_anchor if anchor else w.c_wm)

    def stats(self) -> dict:
        """Counts, realized anchor rate, calibration state and the current weights."""
        with self.lock:
            w = self.weights
            n_groups = len(self.anchor_of)
            n_anchor = sum(self.anchor_of.values())
            return {
                **self.counts,
                "groups": n_groups,
                "anchor_groups": n_anchor,
                "realized_rate": n_anchor / max(1, n_groups),
                "calib_pairs": self.debiaser.n_pairs,
                "calib_active": self.debiaser.active and self.debias,
                **({} if w is None else {"w_A": w.w_anchor, "w_W": w.w_wm, "v_A": w.v_anchor, "v_W": w.v_wm}),
            }

    def state_dict(self) -> dict:
        with self.lock:
            return {
                "sampler": self.sampler.state_dict(),
                "debiaser": self.debiaser.state_dict(),
                "weighter": self.weighter.state_dict(),
                "anchor_of": dict(self.anchor_of),
                "counts": dict(self.counts),
            }

    def load_state_dict(self, state: dict) -> None:
        with self.lock:
            self.sampler.load_state_dict(state["sampler"])
            self.debiaser.load_state_dict(state["debiaser"])
            self.weighter.load_state_dict(state["weighter"])
            self.anchor_of = {k: bool(v) for k, v in state["anchor_of"].items()}
            self.counts = dict(state["counts"])

    def save(self) -> None:
        """Write the state to ``state_path`` atomically (a crash leaves the old or the new file)."""
        if self.state_path is None:
            return
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.state_path.parent, prefix=".mixstate-")
        with os.fdopen(fd, "w") as f:
            json.dump(self.state_dict(), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.state_path)


class MixedRewardWrapper(_PredictingWrapper):
    """WMRL per episode: anchor groups run for real *and* through the world model; the anchor pairs
    train an online isotonic map; every other episode is paid the debiased prediction and never runs.

    Groups come from ``reset(options={"group": key})`` (the env's ``info["group"]``); whole groups are
    anchors or not. An episode's world-model score ``s`` is the prediction at its last text turn, or
    the predicted progress at ``wm_horizon`` for simulated envs; its real score ``y`` is the env's
    final reward (text) or ``info["success"]`` (simulated: anchor episodes run the full horizon).
    Non-anchor episodes are paid ``f(s)`` at their last step, where ``f`` is the current map.

    ``info["mixing"]`` carries ``anchor``, ``wm_raw``, ``wm_debiased`` and ``weight`` (the current
    inverse-variance multiplier of the episode's type, estimated over the groups completed so far:
    a group counts as complete when a new group key is first reset).

    Args:
        env: any Gymnasium env.
        world_model: a ``WorldModel`` or a function ``f(obs) -> float in [0, 1]``.
        anchor_rate: share of groups executed for real, in (0, 1].
        seed: seeds anchor selection.
        state_path: a JSON file; the state is written atomically after every anchor pair and
            loaded at construction if it exists, so a killed run loses no pair.
        selection: ``"hash"`` (stateless: every process agrees) or ``"quota"`` (exact rate).
        wm_horizon: for simulated envs, steps a non-anchor episode runs.
        window, min_pairs: the debiaser's memory and warm-up.
        debias: apply the isotonic map (``False``: the no-debiasing ablation).
        state: a ``MixingState`` shared with other wrappers (then the arguments above that
            configure the state are ignored).
    """

    def __init__(
        self,
        env: gym.Env,
        world_model: WorldModelLike,
        anchor_rate: float = 0.1,
        seed: int = 0,
        state_path: str | os.PathLike | None = None,
        selection: str = "hash",
        wm_horizon: int | None = None,
        window: int = 4096,
        min_pairs: int = 16,
        debias: bool = True,
        state: MixingState | None = None,
    ) -> None:
        super().__init__(env, world_model, wm_horizon)
        self.state = state or MixingState(anchor_rate, seed, state_path, selection, window, min_pairs, debias)
        self._group = ""
        self._anchor = False
        self._s: float | None = None

    @property
    def debiaser(self) -> OnlineDebiaser:
        return self.state.debiaser

    def stats(self) -> dict:
        return self.state.stats()

    def state_dict(self) -> dict:
        return self.state.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.state.load_state_dict(state)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._begin(obs, info)
        key = info.get("group", (options or {}).get("group"))
        self._group = str(key) if key is not None else f"episode-{self.state.counts['episodes']}"
        self._anchor = self.state.begin_episode(self._group)
        self._s = None
        return obs, info

    def step(self, action: Any):
        if self.is_text:
            return self._text_step(action)
        return self._sim_step(action)

    def _count(self) -> None:
        with self.state.lock:
            self.state.counts["real_steps" if self._anchor else "predicted_steps"] += 1

    def _text_step(self, action: Any):
        self._count()
        if not self._anchor:
            obs, reward, terminated, truncated, info, pred = self._predicted_text_step(action, self.state.transform)
            return self._finish(obs, reward, terminated, truncated, info, pred.score, None)
        pred = _predict(self.world_model, self._context, action)
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        _add_wm_cost(info, pred.cost_s)
        real = float(reward) if (terminated or truncated) else None
        return self._finish(obs, float(reward), terminated, truncated, info, pred.score, real)

    def _sim_step(self, action: Any):
        obs, _, terminated, truncated, info = self.env.step(action)
        self._t += 1
        self._count()
        info = dict(info)
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
            real = float(bool(info.get("success", terminated))) if done else None
            return self._finish(obs, 0.0, terminated, truncated, info, wm_score, real)
        reward = self.state.transform(self._s) if done else 0.0
        info.update(reward_source="world_model", real_score=info.get("score"), score=None)
        return self._finish(obs, reward, terminated, truncated, info, wm_score, None)

    def _finish(self, obs, reward, terminated, truncated, info, wm_score, real):
        """Pay anchors their real score, record the episode, and describe the mixing."""
        if real is not None:
            reward = real
        if terminated or truncated:
            self.state.end_episode(self._group, reward, wm_score, real)
        info["mixing"] = {
            "anchor": self._anchor,
            "group": self._group,
            "wm_raw": wm_score,
            "wm_debiased": None if wm_score is None else self.state.transform(wm_score),
            "weight": self.state.weight(self._anchor),
        }
        return obs, reward, terminated, truncated, info
