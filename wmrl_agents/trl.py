"""Reward functions that let TRL's ``GRPOTrainer`` train on any ``WMRL/*`` text env, unmodified.

TRL gives one completion per prompt and asks a reward function
``f(prompts, completions, **columns) -> list[float | None]`` for a whole generation batch. Here
every completion is one single-turn episode: ``env.reset(seed, options={task_id, group})``, then
``env.step(code)`` with the code extracted from the completion::

    dataset = build_dataset(env, seeds=range(256))            # prompt, seed, task_id, group
    trainer = GRPOTrainer(model_dir, reward_funcs=[EnvReward(env)], args=GRPOConfig(...),
                          train_dataset=dataset)

Under a ``MixedRewardWrapper`` the plain :class:`EnvReward` pays anchors their real score and the
rest the debiased world-model score, pooled as ordinary GRPO. :class:`WeightedAdvantageReward` adds
WMRL's Inverse-Variance Denoising: it receives the mixer (the wrappers' ``MixingState``), asks it for
the weighted advantages ``c_T · (r - group mean)`` of each generation batch and returns them.
TRL then subtracts the group mean again (0, since a whole group shares ``c_T``), so

    **WeightedAdvantageReward needs** ``GRPOConfig(scale_rewards="none")`` (exact) or ``"batch"``
    (one batch-wide scale keeps the relative weights); the default ``"group"`` divides each group
    by its own std and cancels the weights. :func:`check_config` raises on a wrong setting, and
    the reward checks the running trainer's config on its first call.

Group keys are ``f"{group}@{global_step}"``: each generation batch draws fresh groups (and fresh
anchor decisions). The completions of a group share its row's seed; each anchor completion keeps its
own pair in the mixing state (named by the seed and a hash of its program, ``mixing/state.py``).
With several processes each process's generation batch must be a multiple of ``num_generations``,
so that no group is split across processes (:func:`check_config` refuses it otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from wmrl_agents.grpo import (
    COST_KEYS,
    EnvPool,
    Episode,
    members,
    mix_advantages,
    outcome_metrics,
    receive_mixer,
    run_episode,
)
from wmrl_agents.llm import SYSTEM_PROMPT, build_messages, extract_code, render_plain
from wmrl_envs.costs import add_cost
from wmrl_envs.mixing.state import MixingState


def build_dataset(
    env: gym.Env,
    seeds: Iterable[int],
    system_prompt: str | None = SYSTEM_PROMPT,
    conversational: bool = True,
):
    """A prompt dataset for TRL from ``env.reset(seed=s)``, one row per seed.

    Columns: ``prompt`` (chat messages, or plain text if ``conversational=False``), ``seed``,
    ``task_id`` and ``group`` (the reset info's; unique per row). Resets go to ``env.unwrapped``,
    so building the dataset counts no episode in a mixing wrapper's state.
    """
    from datasets import Dataset

    rows = []
    for seed in tqdm(list(seeds), desc="prompts", leave=False):
        obs, info = env.unwrapped.reset(seed=int(seed))
        messages = build_messages(obs, system_prompt)
        rows.append({
            "prompt": messages if conversational else render_plain(messages),
            "seed": int(seed),
            "task_id": str(info["task_id"]),
            "group": str(info.get("group") or f"seed-{seed}"),
        })
    groups = [r["group"] for r in rows]
    if len(set(groups)) != len(groups):
        raise ValueError("the env's reset info gave two seeds the same group: give each seed once")
    return Dataset.from_list(rows)


def check_config(args: Any, reward_funcs: Sequence[Any], processes: int = 1) -> None:
    """Raise ``ValueError`` if a ``GRPOConfig`` would cancel or distort a weighted-advantage
    reward's weights when ``processes`` processes train; the message names the ``trl`` flag and
    the config field to set."""
    weighted = [getattr(f, "__name__", type(f).__name__) for f in reward_funcs if getattr(f, "returns_advantages", False)]
    if not weighted:
        return
    scale_rewards: Any = getattr(args, "scale_rewards", "group")  # a str, or a bool in older TRL
    scale = {True: "group", False: "none"}.get(scale_rewards, scale_rewards)
    if scale not in ("none", "batch"):
        raise ValueError(
            f"reward {weighted[0]!r} returns inverse-variance weighted advantages, but scale_rewards={scale!r} "
            "divides each group by its own std and cancels the weights: pass --scale_rewards none "
            "(GRPOConfig(scale_rewards='none'); 'batch' keeps them too)"
        )
    aggregation = getattr(args, "multi_objective_aggregation", "sum_then_normalize")
    if aggregation != "sum_then_normalize":
        raise ValueError(
            f"reward {weighted[0]!r} returns weighted advantages, which multi_objective_aggregation="
            f"{aggregation!r} normalizes per group: pass --multi_objective_aggregation sum_then_normalize "
            "(GRPOConfig(multi_objective_aggregation='sum_then_normalize'))"
        )
    per_process = getattr(args, "per_device_train_batch_size", 1) * (getattr(args, "steps_per_generation", None) or 1)
    generations = getattr(args, "num_generations", 1) or 1
    if processes > 1 and per_process % generations:
        raise ValueError(
            f"reward {weighted[0]!r} takes each group's advantages within one process, but each of the "
            f"{processes} processes scores {per_process} completions at a time (per_device_train_batch_size x "
            f"steps_per_generation), not a multiple of num_generations={generations}, so groups are split "
            "across processes: make --per_device_train_batch_size (x --steps_per_generation) a multiple of "
            "--num_generations"
        )


class _Submit:
    """The policy of one TRL completion: submits its code once."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.turns = 0

    def sample(self, obs: Any, info: dict, rng: np.random.Generator) -> tuple[str, None]:
        self.turns += 1
        if self.turns > 1:
            raise ValueError(
                "the env asked for a second turn, but TRL gives one completion per prompt: "
                "make the env single-turn (max_turns=1)"
            )
        return self.code, None


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    return str(completion[-1]["content"])  # chat: [{"role": "assistant", "content": ...}]


class EnvReward:
    """TRL reward function: each completion's code is run as one episode of ``envs``; its reward
    (real, or the debiased world-model score under ``MixedRewardWrapper``) is returned.

    Works with any ``scale_rewards``. Applies no inverse-variance weight, so the mixer of a
    ``MixedRewardWrapper`` (its groups wait for this trainer) reports none in ``info["mixing"]["weight"]``. Logs ``wmrl/*``
    metrics through TRL's ``log_metric``: real executions, execution and world-model seconds,
    episodes by outcome (``wmrl/outcome/<status>``), real and predicted rewards, failed world-model
    predictions (see :meth:`_metrics`).

    Args:
        envs: the env, or copies of it (copies made separately under ``MixedRewardWrapper`` must
            share one ``MixingState``).
        name: the metric name TRL shows for this reward.
        concurrency: completions scored at once, one thread and env copy each (default: the env's
            sandbox workers). Raise it to batch more world-model predictions per call: predicted
            episodes take no sandbox slot, and concurrent ones share one ``predict_batch`` call.
    """

    returns_advantages = False

    def __init__(self, envs: gym.Env | Sequence[gym.Env], name: str = "wmrl_reward",
                 concurrency: int | None = None) -> None:
        if not isinstance(envs, gym.Env) and not envs:
            raise ValueError("envs is empty: give the env to score completions in")
        self.pool = EnvPool(envs, concurrency)
        self.envs = self.pool.envs
        self.mixer = receive_mixer(self.envs, None)
        self.__name__ = name
        self.calls = 0
        self._checked = False

    def episodes(self, completions: Sequence[Any], seed: Sequence[int], task_id: Sequence[str],
                 keys: Sequence[str]) -> list[Episode]:
        """Run one episode per completion, in order, up to ``concurrency`` at once."""

        def one(env: gym.Env, job: tuple) -> Episode:
            completion, s, t, key, member = job
            return run_episode(env, _Submit(extract_code(_text(completion))), t, key, int(s), np.random.default_rng(int(s)),
                               member)

        return self.pool.map(one, list(zip(completions, seed, task_id, keys, members(keys))))

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], seed: Sequence[int] | None = None,
                 task_id: Sequence[str] | None = None, group: Sequence[str] | None = None, trainer_state: Any = None,
                 log_metric: Any = None, **kwargs: Any) -> list[float]:
        if seed is None or task_id is None or group is None:
            raise ValueError("the dataset needs seed, task_id and group columns: build it with wmrl_agents.trl.build_dataset")
        if not self._checked:
            trainer = getattr(log_metric, "__self__", None)
            if trainer is not None and getattr(trainer, "args", None) is not None:
                check_config(trainer.args, [self], getattr(getattr(trainer, "accelerator", None), "num_processes", 1))
            self._checked = True
        step = trainer_state.global_step if trainer_state is not None else self.calls
        self.calls += 1
        keys = [f"{g}@{step}" for g in group]
        episodes = self.episodes(completions, seed, task_id, keys)
        rewards = self.rewards(episodes, keys, log_metric)
        if self.mixer is not None:
            self.mixer.end_batch()  # the batch's groups complete and its anchor pairs enter the map
        if log_metric is not None:
            for name, value in self._metrics(episodes).items():
                log_metric(name, value)
        return rewards

    def rewards(self, episodes: Sequence[Episode], keys: Sequence[str], log_metric: Any) -> list[float]:
        return [e.reward for e in episodes]

    @staticmethod
    def _metrics(episodes: Sequence[Episode]) -> dict[str, float]:
        """The batch's ``wmrl/*`` metrics (None-valued ones are left out). ``real_episodes``
        counts programs that ran: text refused before running (no code: ``invalid_action``) is
        in ``outcome/invalid_action``, not there. ``real_score`` (the raw metric) is logged only
        when every scored episode is of one task; ``real_reward`` / ``predicted_reward`` are the
        env's normalised rewards of real / world-model episodes, ``wm_raw`` the raw predictions,
        ``score/<metric>`` the mean raw score per metric where the env names it (``info["metric"]``)."""
        scored = [e for e in episodes if e.score is not None]
        total = add_cost(*(e.cost for e in episodes))
        out = {f"wmrl/{k}": float(total[k]) for k in COST_KEYS}
        out["wmrl/reward"] = float(np.mean([e.reward for e in episodes]))
        extra = outcome_metrics(episodes)
        out["wmrl/real_episodes"] = float(extra.pop("executed_episodes"))
        out["wmrl/anchor_episodes"] = float(sum(bool(e.anchor) for e in episodes))
        out["wmrl/wm_failures"] = float(sum(e.wm_failures for e in episodes))
        if scored and len({e.task_id for e in scored}) == 1:
            out["wmrl/real_score"] = float(np.mean([e.score for e in scored]))
        renamed = {"reward/real_mean": "real_reward", "reward/predicted_mean": "predicted_reward",
                   "wm/raw_mean": "wm_raw", "cost/exec_s_mean": "exec_s_mean"}
        for k, v in extra.items():
            if v is not None:
                out[f"wmrl/{renamed.get(k, k)}"] = float(v)
        return out


class WeightedAdvantageReward(EnvReward):
    """TRL reward function for WMRL under a ``MixedRewardWrapper``: returns the inverse-variance
    weighted advantages ``c_T · (r - group mean)`` the mixer gives (``c_T`` as in
    :mod:`wmrl_envs.mixing.denoise`, ``T`` anchor or world-model group; the mixer's
    ``MixingConfig`` decides ``weighting`` and ``ema``; advantages are Dr. GRPO's, ``normalize="none"``). Needs
    ``GRPOConfig(scale_rewards="none")`` (module docstring).

    On a plain env every group is real, ``c = 1``: Dr. GRPO advantages.

    Args:
        envs, name, concurrency: as :class:`EnvReward`.
        mixer: the ``MixingState`` the wrappers of ``envs`` feed (default: found in their stacks).
    """

    returns_advantages = True

    def __init__(self, envs: gym.Env | Sequence[gym.Env], name: str = "wmrl_weighted_advantage",
                 concurrency: int | None = None, mixer: MixingState | None = None) -> None:
        super().__init__(envs, name, concurrency)
        self.mixer = receive_mixer(self.envs, mixer)

    def rewards(self, episodes: Sequence[Episode], keys: Sequence[str], log_metric: Any) -> list[float]:
        order = list(dict.fromkeys(keys))
        blocks = [[i for i, k in enumerate(keys) if k == key] for key in order]
        if any(b != list(range(b[0], b[0] + len(b))) for b in blocks):
            raise ValueError("completions of one group are not adjacent: give each dataset row its own group value")
        groups = [[episodes[i] for i in b] for b in blocks]
        advantages, w = mix_advantages(groups, self.mixer)
        if log_metric is not None and w is not None and any(e.anchor is not None for e in episodes):
            log_metric("denoise/w_anchor", w.w_anchor)
            log_metric("denoise/w_wm", w.w_wm)
        return np.concatenate(advantages).tolist()
