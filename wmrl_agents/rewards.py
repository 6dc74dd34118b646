"""Reward functions for TRL's own launcher, configured by environment variables.

``trl grpo --reward_funcs a.b.f`` imports ``f`` and calls ``f(prompts=..., completions=..., **columns)``,
so these are plain functions. Each builds its env (and the WMRL wrapper) once per process, on its
first call, and delegates to :class:`~wmrl_agents.trl.EnvReward` or
:class:`~wmrl_agents.trl.WeightedAdvantageReward`::

    wmrl dataset --env WMRL/MLEDojo-v0 --seeds 512 --out data/mledojo
    WMRL_WORLD_MODEL=static WMRL_STATE_PATH=run/mixing.json \\
    trl grpo --model_name_or_path MODEL --dataset_name data/mledojo --output_dir run \\
        --reward_funcs wmrl_agents.rewards.weighted_advantage_reward --scale_rewards none

Environment variables (all optional):

    WMRL_ENV           the text env id (default WMRL/MLEDojo-v0); the dataset's env
    WMRL_TASKS         comma-separated task ids (default: every task of the split)
    WMRL_SPLIT         the env's split (default train)
    WMRL_WORLD_MODEL   a world-model spec (static, learned, openai:URL[#MODEL], vllm:PATH, hf:PATH):
                       WMRL's mixing; unset: every completion runs for real
    WMRL_ANCHOR_RATE   share of groups executed for real under a world model (default 0.1)
    WMRL_STATE_PATH    the mixing state file: anchor pairs survive a restart, processes share them
    WMRL_EXECUTOR      sandbox backend: auto, warm, bwrap, gvisor, docker, ray (cluster: RAY_ADDRESS), local
    WMRL_WORKERS       programs the sandbox runs at once per process (default 2)
    WMRL_CONCURRENCY   completions scored at once per process (default 16): predicted ones take no
                       sandbox slot, and concurrent predictions share one world-model batch
    WMRL_WEIGHTING     weighted_advantage_reward: inverse-variance (default; energy: its deprecated
                       name) or pooled

``weighted_advantage_reward`` returns weighted advantages: run TRL with ``--scale_rewards none``.
Use one of the two functions per run. ``trl grpo`` imports this module before it loads the model;
then :func:`check_launch` reads the script's flags and stops the run with one line per problem
(a setting that cancels the weights, a model folder without tokenizer, ``--use_vllm`` without
vLLM, ``accelerate`` asked for processes it did not start) and exit code 2.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_ENV = "WMRL/MLEDojo-v0"

_rewards: dict[str, Any] = {}
_lock = threading.Lock()


def _number(environ: Mapping[str, str], name: str, default: float, kind: type = float) -> Any:
    text = environ.get(name)
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name} must be {'a whole number' if kind is int else 'a number'}, got {text!r}") from None


def build_reward(weighted: bool, environ: Mapping[str, str] = os.environ):
    """A new ``WeightedAdvantageReward`` (``weighted``) or ``EnvReward`` configured by ``environ``."""
    from wmrl_agents.train import comma_list, make_env, run_mixer
    from wmrl_agents.trl import EnvReward, WeightedAdvantageReward
    from wmrl_envs.copies import can_spawn
    from wmrl_envs.mixing import MixingConfig

    world_model = environ.get("WMRL_WORLD_MODEL") or None
    mixing = None
    if world_model:
        mixing = MixingConfig(anchor_rate=_number(environ, "WMRL_ANCHOR_RATE", MixingConfig.anchor_rate),
                              weighting=environ.get("WMRL_WEIGHTING") or MixingConfig.weighting)
    mixer = run_mixer(mixing, environ.get("WMRL_STATE_PATH") or None)
    env = make_env(
        environ.get("WMRL_ENV") or DEFAULT_ENV,
        tasks=comma_list(environ.get("WMRL_TASKS", "")),
        split=environ.get("WMRL_SPLIT") or "train",
        executor=environ.get("WMRL_EXECUTOR") or "auto",
        world_model=world_model,
        mixer=mixer,
        workers=_number(environ, "WMRL_WORKERS", 2, int),
    )
    concurrency = _number(environ, "WMRL_CONCURRENCY", 16, int) if can_spawn(env) else None
    if weighted:
        return WeightedAdvantageReward(env, concurrency=concurrency, mixer=mixer)
    return EnvReward(env, concurrency=concurrency)


def _reward(weighted: bool):
    """This process's reward object of the kind, built on first use."""
    key = "weighted" if weighted else "plain"
    with _lock:
        if key not in _rewards:
            _rewards[key] = build_reward(weighted)
        return _rewards[key]


def env_reward(prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float]:
    """Each completion's episode reward: real, or the debiased world-model score under WMRL."""
    return _reward(False)(prompts=prompts, completions=completions, **columns)


def weighted_advantage_reward(prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float]:
    """WMRL's inverse-variance weighted advantages (needs TRL's ``scale_rewards="none"``)."""
    return _reward(True)(prompts=prompts, completions=completions, **columns)


weighted_advantage_reward.returns_advantages = True  # type: ignore[attr-defined]  # a function attribute, read by wmrl_agents.trl.check_config
REWARDS = {f.__name__: f for f in (env_reward, weighted_advantage_reward)}


def check_launch(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    """Problems of a ``trl grpo`` run that scores with these functions, one line each, read from
    the flags of TRL's grpo script (``argv``) before any model loads."""
    import warnings

    from trl.scripts.grpo import make_parser

    from wmrl_agents.health import check_launcher, check_model, check_vllm
    from wmrl_agents.trl import check_config

    with warnings.catch_warnings():  # the script's own parse has shown them
        warnings.simplefilter("ignore")
        script_args, training_args, model_args, _ = make_parser().parse_args_and_config(
            args=list(argv), fail_with_unknown_args=False)
    ours = [REWARDS[n] for m, _, n in (f.rpartition(".") for f in script_args.reward_funcs or ())
            if m == __name__ and n in REWARDS]
    problems = [check_launcher(environ)]
    if len(ours) > 1:
        problems.append(f"--reward_funcs names {' and '.join(f.__name__ for f in ours)}: use one of them per run")
    try:
        check_config(training_args, ours, int(environ.get("WORLD_SIZE", 1)))
    except ValueError as e:
        problems.append(str(e))
    model = model_args.model_name_or_path or ""
    if Path(model).expanduser().exists() or model.startswith(("/", ".", "~")):  # a folder, not a Hub id
        problems.append(check_model(model))
    if training_args.use_vllm and check_vllm() is not None:
        problems.append("--use_vllm needs vLLM, which is not installed: pip install -e '.[vllm]' on a CUDA machine, "
                        "or drop --use_vllm")
    return [p for p in problems if p]


def export_dataset(out: str | os.PathLike, env_id: str = DEFAULT_ENV, seeds: int = 256,
                   tasks: Sequence[str] | None = None, split: str = "train") -> Path:
    """Write the prompt dataset of seeds ``0..seeds-1`` (:func:`~wmrl_agents.trl.build_dataset`)
    to ``out/train.jsonl``, which ``datasets.load_dataset(out)`` (``trl grpo --dataset_name out``)
    reads as its train split."""
    from wmrl_agents.train import make_env
    from wmrl_agents.trl import build_dataset

    if seeds < 1:
        raise ValueError(f"--seeds must be at least 1, got {seeds}")
    env = make_env(env_id, tasks, split)
    try:
        dataset = build_dataset(env, range(seeds))
    finally:
        env.close()
    path = Path(out) / "train.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    dataset.to_json(str(path), lines=True, force_ascii=False)
    return path


def _check_trl_grpo() -> None:
    """Under TRL's grpo script (what ``trl grpo`` launches; it imports its reward functions before
    it loads the model): print each problem of its flags on one line and exit with code 2."""
    script = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    if Path(script).parts[-3:] != ("trl", "scripts", "grpo.py"):
        return
    problems = check_launch(sys.argv[1:])
    if problems:
        if os.environ.get("RANK", "0") == "0":  # one report, not one per process
            print("\n".join(f"wmrl_agents.rewards: {p}" for p in problems), file=sys.stderr)
        raise SystemExit(2)


_check_trl_grpo()
