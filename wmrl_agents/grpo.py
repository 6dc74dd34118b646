"""GRPO that does not care what the policy is, with WMRL's inverse-variance weights for mixed batches.

One update, CleanRL-style:

    for each of K groups: pick a task; run G episodes from the same task (one group key)
    r_i      = episode return (real, or the debiased world-model score under MixedRewardWrapper)
    A_i      = r_i - mean(r in group)                 (÷ std + eps if normalize="group")
    c_T      = w_T · N / N_T                          (inverse-variance weights, T ∈ {anchor, wm})
    loss     = -(1/N) Σ_i c_T(i) · A_i · log π(a_i | x_i)
    policy.update(episodes, c·A)

Under ``MixedRewardWrapper`` the trainer receives the mixer (the wrappers' ``MixingState``) and
asks it for ``c·A`` (:meth:`~wmrl_envs.mixing.state.MixingState.advantages`): its one weighter
and its ``MixingConfig`` (``weighting``, ``ema``, ``normalize``, ``eps``) decide them, and the
weight it reports in ``info["mixing"]["weight"]`` is the one applied to the last batch.
Plain envs (all rewards real) give c = 1: ordinary GRPO (Dr. GRPO advantages by default).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from queue import Queue
from typing import Any, Literal, Protocol, SupportsFloat, TypeVar

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from wmrl_envs.contract import COST_KEYS, Cost, StepInfo, add_cost, step_info, zero_cost
from wmrl_envs.copies import env_copies
from wmrl_envs.jsonl import append_record
from wmrl_envs.mixing import Weights, group_advantages
from wmrl_envs.mixing.config import EPS, NORMALIZE, advantage_setting
from wmrl_envs.mixing.state import MixingState

J = TypeVar("J")
R = TypeVar("R")
Job = tuple[str, str, int]
"""One episode to run: ``(task_id, group, seed)``."""

# An episode's outcome (Episode.outcome): the env's info["status"] for episodes it ran ("timeout":
# a run stopped by its wall or CPU time limit: status "run_failed" with info["timed_out"]), "predicted"
# for world-model-scored ones, "world_model_failure" when a failed prediction was replaced by the
# static fallback, "unknown" for a real env that reports no status.
OUTCOMES = ("ok", "invalid_action", "run_failed", "timeout", "invalid_submission", "sandbox_error",
            "predicted", "world_model_failure", "unknown")


class Sampler(Protocol):
    """What running an episode needs of a policy (:func:`run_episode`, :meth:`EnvPool.run`); a policy
    with memory across steps also has ``reset()``, called when an episode starts."""

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[Any, Any]:
        """An action for ``obs`` and a record of how it was chosen (for ``update``)."""


class Policy(Sampler, Protocol):
    """What the trainer needs of a policy."""

    def update(self, records: Sequence[Sequence[Any]], advantages: np.ndarray) -> dict:
        """One policy-gradient step: ``records[i]`` are episode i's step records, ``advantages[i]``
        its weighted advantage. Returns scalars to log (e.g. loss)."""

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...


@dataclass
class Episode:
    task_id: str
    group: str
    records: list = field(default_factory=list)
    reward: float = 0.0
    score: float | None = None
    anchor: bool | None = None  # None: no mixing (a real env)
    real: bool = True  # whether the env executed it
    wm_failures: int = 0  # steps whose world-model prediction failed (info["wm_failure"])
    wm_score: float | None = None  # the world model's raw score of the episode (info["mixing"])
    status: str | None = None  # the env's last info["status"] (e.g. "ok", "run_failed")
    cost: Cost = field(default_factory=zero_cost)
    reward_source: str | None = None  # the last step's info["reward_source"]
    timed_out: bool = False  # the last step's info["timed_out"]: its run hit its wall or CPU time limit
    metric: str | None = None  # the name of ``score``'s metric (info["metric"]), where the env says

    @property
    def outcome(self) -> str:
        """What happened to the episode (one of :data:`OUTCOMES`, or an env's own status)."""
        if self.reward_source == "world_model_fallback":
            return "world_model_failure"
        if not self.real:
            return "predicted"
        if self.status == "run_failed" and self.timed_out:
            return "timeout"
        return self.status or "unknown"

    @property
    def executed(self) -> bool:
        """Whether a program actually ran: real, and not refused before running (invalid_action)."""
        return self.real and self.outcome != "invalid_action"

    def add_step(self, record: Any, reward: SupportsFloat, info: StepInfo) -> None:
        """Count one step: its record, reward, cost, source and mixing."""
        self.records.append(record)
        self.reward += float(reward)
        self.cost = add_cost(self.cost, info.get("cost"))
        self.real = self.real and info.get("reward_source", "real") == "real"
        self.wm_failures += "wm_failure" in info
        mixing = info.get("mixing")
        if mixing is not None:
            self.anchor = bool(mixing["anchor"])
            self.wm_score = mixing.get("wm_raw")

    def finish(self, info: StepInfo) -> None:
        """Take the verdict from the last step's info: all a replayed step has, as recorded."""
        self.score = info.get("score")
        self.metric = info.get("metric")
        self.status = info.get("status")
        self.reward_source = info.get("reward_source", "real")
        self.timed_out = bool(info.get("timed_out", False))


def run_episode(
    env: gym.Env, policy: Sampler, task_id: str, group: str, seed: int, rng: np.random.Generator,
    member: int | None = None,
) -> Episode:
    """Reset ``env`` on ``task_id`` in group ``group`` (as its ``member``-th episode: the order a
    mixer answers in) and act until the episode ends."""
    options: dict[str, Any] = {"task_id": task_id, "group": group, **({} if member is None else {"member": member})}
    obs, info = env.reset(seed=seed, options=options)
    if hasattr(policy, "reset"):  # a policy with memory across steps (action chunks) starts afresh
        policy.reset()
    ep = Episode(task_id=task_id, group=group)
    done = False
    while not done:
        action, record = policy.sample(obs, info, rng)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        ep.add_step(record, reward, step_info(info))
    ep.finish(step_info(info))
    return ep


def within_group_fidelity(groups: Sequence[Sequence[Episode]]) -> dict:
    """The world model's Spearman with the real reward within each anchor group of a batch (the
    ordering GRPO uses: advantages are differences within a group), averaged over the batch's anchor
    groups whose scores and rewards both vary (``wm/within_groups`` of them; None without one)."""
    from scipy.stats import spearmanr

    rhos = []
    for g in groups:
        scores = [e.wm_score for e in g if e.anchor]
        if len(scores) < len(g) or None in scores:
            continue
        s, y = np.asarray(scores, dtype=np.float64), np.asarray([e.reward for e in g])
        if np.ptp(s) > 0 and np.ptp(y) > 0:
            rhos.append(float(spearmanr(s, y).statistic))
    return {"wm/within_group_spearman": float(np.mean(rhos)) if rhos else None, "wm/within_groups": len(rhos)}


def outcome_metrics(episodes: Sequence[Episode]) -> dict:
    """Per batch: episodes by outcome (``outcome/<name>``), ``executed_episodes`` (programs that
    ran: garbage refused as ``invalid_action`` is not one), rewards of real and of predicted
    episodes (normalised by the env's reward, unlike raw metric values of different tasks), the
    world model's raw score, real scores by metric (``score/<metric>``: raw values of different
    metrics are never averaged together), and execution seconds per executed episode (None where
    undefined)."""
    counts = Counter(e.outcome for e in episodes)
    executed = [e for e in episodes if e.executed]
    real = [e.reward for e in episodes if e.real]
    predicted = [e.reward for e in episodes if not e.real]
    raw = [e.wm_score for e in episodes if e.wm_score is not None]
    out: dict[str, Any] = {f"outcome/{k}": int(counts.get(k, 0)) for k in OUTCOMES}
    out.update({f"outcome/{k}": int(v) for k, v in counts.items() if k not in OUTCOMES})
    out.update({
        "executed_episodes": len(executed),
        "reward/real_mean": float(np.mean(real)) if real else None,
        "reward/predicted_mean": float(np.mean(predicted)) if predicted else None,
        "wm/raw_mean": float(np.mean(raw)) if raw else None,
        "cost/exec_s_mean": float(np.mean([e.cost["exec_s"] for e in executed])) if executed else None,
    })
    by_metric: dict[str, list[float]] = {}
    for e in episodes:
        if e.score is not None and e.metric is not None:
            by_metric.setdefault(e.metric, []).append(e.score)
    out.update({f"score/{m}": float(np.mean(v)) for m, v in sorted(by_metric.items())})
    return out


def mix_advantages(
    groups: Sequence[Sequence[Episode]], mixer: MixingState | None, normalize: str = NORMALIZE, eps: float = EPS
) -> tuple[list[np.ndarray], Weights | None]:
    """Advantages of complete groups of episodes: the mixer's, asked by group
    (:meth:`MixingState.advantages`, which also weighs them, checked against the rewards the
    trainer saw), or without one (a plain env: every reward real, ``c = 1``) plain GRPO
    advantages, divided by the group std + ``eps`` with ``normalize="group"``, and no weights."""
    rewards = [[e.reward for e in g] for g in groups]
    if mixer is None:
        return group_advantages(rewards, normalize=normalize == "group", eps=eps), None
    return mixer.advantages([g[0].group for g in groups], normalize, eps, check=rewards)


def members(keys: Iterable[str]) -> list[int]:
    """Each key's place among the earlier ones equal to it: ``a, a, b, a`` -> ``0, 1, 0, 2``."""
    seen: Counter[str] = Counter()
    out = []
    for k in keys:
        out.append(seen[k])
        seen[k] += 1
    return out


def find_mixer(envs: gym.Env | Sequence[gym.Env]) -> MixingState | None:
    """The one mixer (``MixingState``) the ``MixedRewardWrapper`` of ``envs`` feed, through any
    wrapper stack; None for plain envs. Copies that feed different mixers are a ``ValueError``."""
    found: list[Any] = []
    for env in [envs] if isinstance(envs, gym.Env) else list(envs):
        state = _wrapper_attr(env, "state")
        if isinstance(state, MixingState) and all(state is not s for s in found):
            found.append(state)
    if len(found) > 1:
        raise ValueError(f"the env copies feed {len(found)} different mixers (MixingState): build the "
                         "MixedRewardWrapper copies with one mixer (MixingState(...) or MixingState.shared(path, ...))")
    return found[0] if found else None


def receive_mixer(envs: gym.Env | Sequence[gym.Env], mixer: MixingState | None) -> MixingState | None:
    """The mixer a trainer applies: ``mixer`` (it must be the one the envs feed) or the envs' own."""
    fed = find_mixer(envs)
    if mixer is not None and fed is not None and fed is not mixer:
        raise ValueError("mixer= is not the MixingState the envs' MixedRewardWrapper feed: pass the wrappers' "
                         "mixer (or build the wrappers with this mixer)")
    return mixer if mixer is not None else fed


class EnvPool:
    """Env copies stepped from a thread pool: each thread borrows one env for a whole episode.

    Args:
        envs: one env, or copies of it.
        concurrency: episodes in flight; ``envs`` is topped up with spawned copies
            (:func:`~wmrl_envs.copies.env_copies`; default: the env's executor workers).
    """

    def __init__(self, envs: gym.Env | Sequence[gym.Env], concurrency: int | None = None) -> None:
        self.envs = env_copies(envs if isinstance(envs, gym.Env) else list(envs), concurrency)
        self._free: Queue = Queue()
        for env in self.envs:
            self._free.put(env)

    def map(self, fn: Callable[[gym.Env, J], R], items: Sequence[J], progress: tqdm | None = None) -> list[R]:
        """``fn(env, item)`` for each item on a borrowed env; results come back in item order."""

        def one(item: J) -> R:
            env = self._free.get()
            try:
                return fn(env, item)
            finally:
                self._free.put(env)
                if progress is not None:
                    progress.update(1)

        if len(self.envs) == 1:
            return [one(item) for item in items]
        with ThreadPoolExecutor(len(self.envs)) as pool:
            return list(pool.map(one, items))

    def run(self, jobs: Sequence[Job], policy: Sampler, progress: tqdm | None = None) -> list[Episode]:
        """``jobs``: ``(task_id, group, seed)``; episodes come back in job order, and each is its
        group's next ``member`` in that order."""
        places = members(job[1] for job in jobs)
        return self.map(lambda env, job: run_episode(env, policy, *job[0], np.random.default_rng(job[0][2]), job[1]),
                        list(zip(jobs, places)), progress)


class GRPOTrainer:
    """Trains ``policy`` with GRPO on ``tasks`` of ``envs``.

    Args:
        envs: one env, or copies of it (copies made separately under ``MixedRewardWrapper`` must
            share one ``MixingState``).
        policy: anything with ``sample``/``update``/``state_dict``/``load_state_dict``.
        tasks: task ids to train on (each group picks one).
        group_size: G, episodes per group.
        groups_per_update: K, groups per policy update.
        normalize: ``"none"`` (Dr. GRPO) or ``"group"`` (divide by the group std + eps): the
            advantage setting of every arm, real or mixed (the mixer applies it to its groups).
        eps: added to the group std with ``normalize="group"`` (a larger one floors the divisor
            of a group whose rewards barely differ).
        mixer: the ``MixingState`` the ``MixedRewardWrapper`` of ``envs`` feed (default: found in
            their wrapper stacks); the trainer asks it for every batch's advantages, weighted as its
            ``MixingConfig`` says (``weighting``, ``ema``).
        seed: seeds task choice and sampling.
        log_dir: where ``metrics.jsonl``, ``checkpoint.json`` (and TensorBoard events, if installed) go.
            ``real_episodes`` (per update and in ``totals``) counts programs that ran: a program
            the env refused unrun (``invalid_action``) is no execution, as in TRL's
            ``wmrl/real_episodes``.
        progress: show a progress bar.
        concurrency: episodes run at once, one thread and env copy each (default: the env's
            sandbox workers, or the number of envs given; see :class:`EnvPool`).
        checkpoint_every: write ``checkpoint.json`` (and the policy's checkpoint) every this many
            updates (default 1: after each); the last update of :meth:`train` is always saved. A
            resumed run redoes the updates after the last checkpoint, so ``metrics.jsonl`` can then
            hold a row of one update twice: keep the last.
    """

    def __init__(
        self,
        envs: gym.Env | Sequence[gym.Env],
        policy: Policy,
        tasks: Sequence[str],
        group_size: int = 4,
        groups_per_update: int = 4,
        normalize: str = NORMALIZE,
        eps: float = EPS,
        seed: int = 0,
        log_dir: str | os.PathLike | None = None,
        progress: bool = True,
        checkpoint_every: int = 1,
        concurrency: int | None = None,
        mixer: MixingState | None = None,
    ) -> None:
        if not tasks:
            raise ValueError("tasks is empty: give at least one task id to train on")
        if group_size < 2:
            raise ValueError(f"group_size must be at least 2 (advantages are relative to the group), got {group_size}")
        if groups_per_update < 1:
            raise ValueError(f"groups_per_update must be at least 1, got {groups_per_update}")
        setting = advantage_setting(normalize, eps)
        if int(checkpoint_every) < 1:
            raise ValueError(f"checkpoint_every must be at least 1, got {checkpoint_every}")
        self.checkpoint_every = int(checkpoint_every)
        self.pool = EnvPool(envs, concurrency)
        self.policy = policy
        self.tasks = list(tasks)
        self.group_size = int(group_size)
        self.groups_per_update = int(groups_per_update)
        self.mixer = receive_mixer(self.pool.envs, mixer)
        self.normalize, self.eps = setting["normalize"], setting["eps"]
        self.seed = int(seed)
        self.log_dir = None if log_dir is None else Path(log_dir)
        self.progress = progress
        self.update_idx = 0
        self.totals: dict[str, float] = {**dict.fromkeys(COST_KEYS, 0.0), "update_s": 0.0, "episodes": 0, "real_episodes": 0}
        self.anchor_pairs: list[tuple[float, float, bool]] = []  # (world-model score, real reward, run ok)
        self._tb: _ScalarWriter | Literal[False] | None = None  # False: no TensorBoard installed

    # -- one update ---------------------------------------------------------------------------
    def _jobs(self, update: int) -> list[Job]:
        rng = np.random.default_rng([self.seed, update])
        picks = rng.choice(len(self.tasks), size=self.groups_per_update, replace=len(self.tasks) < self.groups_per_update)
        jobs: list[Job] = []
        for k, t in enumerate(picks):
            group = f"s{self.seed}-u{update}-g{k}"
            for m in range(self.group_size):
                jobs.append((self.tasks[t], group, int(rng.integers(2**31)) + m))
        return jobs

    def step(self, bar: tqdm | None = None) -> dict:
        """Collect one batch and update the policy; returns the logged metrics."""
        jobs = self._jobs(self.update_idx)
        episodes = self.pool.run(jobs, self.policy, bar)
        groups = [episodes[i : i + self.group_size] for i in range(0, len(episodes), self.group_size)]
        rewards = [[e.reward for e in g] for g in groups]
        adv, w = mix_advantages(groups, self.mixer, self.normalize, self.eps)
        anchor = np.array([bool(e.anchor) for e in episodes])
        mixed = any(e.anchor is not None for e in episodes)
        t0 = time.perf_counter()
        upd = self.policy.update([e.records for e in episodes], np.concatenate(adv))
        update_s = time.perf_counter() - t0

        cost = self._account(episodes, update_s)
        scores = [e.score for e in episodes if e.score is not None]
        metrics = {
            "update": self.update_idx,
            "reward_mean": float(np.mean([e.reward for e in episodes])),
            "real_score_mean": float(np.mean(scores)) if scores else None,
            "real_episodes": int(sum(e.executed for e in episodes)),  # as TRL's wmrl/real_episodes
            "frac_zero_std_groups": float(np.mean([np.ptp(r) == 0 for r in rewards])),
            "wm/failures": int(sum(e.wm_failures for e in episodes)),
            **{f"cost/{k}": v for k, v in cost.items()},
            "cost/update_s": update_s,
            **{f"policy/{k}": v for k, v in upd.items()},
            **outcome_metrics(episodes),
            **within_group_fidelity(groups),
        }
        if mixed and w is not None and self.mixer is not None:
            metrics.update({"denoise/w_anchor": w.w_anchor, "denoise/w_wm": w.w_wm, "denoise/pooled": w.pooled,
                            "denoise/floored": w.floored, "denoise/dropped": w.dropped, "anchor/episodes": int(anchor.sum())})
            metrics.update(mixing_metrics(self.mixer.stats()))
        self.update_idx += 1
        return metrics

    def _account(self, episodes: list[Episode], update_s: float) -> Cost:
        """Add the batch's cost, episode counts and anchor pairs to the run's totals; the batch's cost."""
        cost = add_cost(*(e.cost for e in episodes))
        for k in COST_KEYS:
            self.totals[k] += cost[k]
        self.totals["update_s"] += update_s
        self.totals["episodes"] += len(episodes)
        self.totals["real_episodes"] += sum(e.executed for e in episodes)  # a refused program never ran
        self.anchor_pairs += [(e.wm_score, e.reward, e.status == "ok") for e in episodes
                              if e.anchor and e.wm_score is not None]
        return cost

    # -- the loop, logging, checkpoints -------------------------------------------------------
    def train(self, updates: int, resume: bool = True) -> list[dict]:
        """Run until ``updates`` policy updates are done (resuming from ``log_dir`` if allowed)."""
        if resume:
            self.maybe_resume()
        history = []
        total = (updates - self.update_idx) * self.groups_per_update * self.group_size
        with tqdm(total=max(0, total), desc="GRPO episodes", disable=not self.progress, leave=False) as bar:
            while self.update_idx < updates:
                metrics = self.step(bar)
                history.append(metrics)
                self._log(metrics)
                if self.update_idx % self.checkpoint_every == 0 or self.update_idx >= updates:
                    self.save_checkpoint()
                bar.set_postfix(update=self.update_idx, reward=f"{metrics['reward_mean']:.3f}")
        return history

    def _log(self, metrics: dict) -> None:
        if self.log_dir is None:
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        append_record(self.log_dir / "metrics.jsonl", metrics)
        if self._tb is None:
            self._tb = _tensorboard_writer(self.log_dir) or False
        if self._tb:
            for k, v in metrics.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    self._tb.add_scalar(k, v, metrics["update"])
            self._tb.flush()

    def state_dict(self) -> dict:
        return {
            "update": self.update_idx,
            "totals": dict(self.totals),
            "anchor_pairs": self.anchor_pairs,
            "policy": self.policy.state_dict(),
            "mixing": [] if self.mixer is None else [self.mixer.state_dict()],  # the weights are the mixer's
        }

    def load_state_dict(self, state: dict) -> None:
        self.update_idx = int(state["update"])
        self.totals = dict(state["totals"])
        self.anchor_pairs = [tuple(p) for p in state.get("anchor_pairs", [])]
        self.policy.load_state_dict(state["policy"])
        saved = state.get("mixing") or []
        if self.mixer is not None and saved:
            self.mixer.load_state_dict(saved[0])
            if state.get("weighter") is not None:  # a checkpoint of a trainer with its own weighter: the applied one
                self.mixer.weighter.load_state_dict(state["weighter"])

    def save_checkpoint(self) -> None:
        if self.log_dir is None:
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.log_dir, prefix=".ckpt-")
        with os.fdopen(fd, "w") as f:
            json.dump(self.state_dict(), f)
        os.replace(tmp, self.log_dir / "checkpoint.json")

    def maybe_resume(self) -> bool:
        path = None if self.log_dir is None else self.log_dir / "checkpoint.json"
        if path is None or not path.exists():
            return False
        self.load_state_dict(json.loads(path.read_text()))
        return True


def env_task_ids(env: gym.Env) -> list[str]:
    """The task ids an env draws from: its unwrapped env's ``task_ids`` (``MLEEnv`` has them)."""
    ids = getattr(env.unwrapped, "task_ids", None)
    if ids is None:
        raise AttributeError(f"{type(env.unwrapped).__name__} has no task_ids: GRPO and the evaluation draw "
                             "tasks from an env that lists them (MLEEnv)")
    return list(ids)


def _wrapper_attr(env, name: str):
    """``name`` from the env or any wrapper in its stack (None if none has it)."""
    try:
        return env.get_wrapper_attr(name) if hasattr(env, "get_wrapper_attr") else getattr(env, name)
    except AttributeError:
        return None


def mixing_metrics(stats: dict) -> dict:
    """The mixing state's rate, calibration and exploitation monitor, as flat log metrics."""
    monitor = stats.get("monitor") or {}
    recent = monitor.get("recent") or {}
    out = {
        "mixing/anchor_rate": stats.get("anchor_rate"),
        "mixing/calib_pairs": stats.get("calib_pairs"),
        "mixing/calib_active": stats.get("calib_active"),
        "monitor/alarm": monitor.get("alarm"),
        "monitor/calibrated": monitor.get("calibrated"),
    }
    out.update({f"monitor/recent_{k}": recent.get(k) for k in ("calib_error", "overrating", "spearman")})
    return {k: v for k, v in out.items() if v is not None}


class _ScalarWriter(Protocol):
    """What :class:`GRPOTrainer` uses of a TensorBoard ``SummaryWriter``."""

    def add_scalar(self, tag: str, scalar_value: float, global_step: int) -> Any: ...

    def flush(self) -> Any: ...


def _tensorboard_writer(log_dir: Path) -> _ScalarWriter | None:
    """A TensorBoard writer when ``tensorboard`` (or ``tensorboardX``) is installed, else None."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        try:
            from tensorboardX import SummaryWriter
        except ImportError:
            return None
    return SummaryWriter(str(log_dir / "tb"))
