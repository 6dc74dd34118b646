"""``wmrl train``: GRPO or WMRL training of an LLM policy on a ``WMRL/*`` text env, in one command.

Two trainers run the same recipe (groups of ``group_size`` completions per prompt, Dr. GRPO
advantages, WMRL's inverse-variance weights when a world model pays most groups):

    trl    TRL's GRPOTrainer with wmrl_agents.trl.EnvReward / WeightedAdvantageReward
           (scale_rewards="none"); vLLM generation where installed; accelerate for several GPUs
    wmrl   the project's GRPOTrainer with LLMPolicy: no TRL needed, the CPU fallback

Everything lives in the run folder ``out``: ``config.yaml``, checkpoints, logs and the final model
in ``out/final``. Rerunning with the same folder continues the run (and refuses other settings).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, TypedDict

from wmrl_agents import config_flags
from wmrl_agents.config_flags import check_resume, comma_list, flag, from_args, load_yaml, option, save_yaml
from wmrl_agents.health import PreflightError, check_trl, check_vllm, preflight
from wmrl_envs.mixing.config import WEIGHTINGS, MixingConfig, saved_weighting
from wmrl_envs.mixing.state import MixingState

TRAINERS = ("auto", "trl", "wmrl")
# Settings a resumed run may change: how long it runs, where programs run, how it reports.
RESUMABLE = ("out", "updates", "save_steps", "quiet", "report_to", "workers", "executor", "ray_address", "vllm_server")


@dataclass
class TrainConfig:
    """Settings of ``wmrl train`` (TRL style: every field's help is in ``metadata["help"]``; bad
    values raise ``ValueError`` naming the flag). ``TrainConfig.from_yaml(path, **overrides)``."""

    model: str | None = option(None, "a local Hugging Face model folder (required; nothing is downloaded)")
    env: str = option("WMRL/MLEDojo-v0", "the text env id")
    tasks: list[str] | None = option(None, "comma-separated task ids (default: every task of the split)")
    split: str = option("train", "the env's split: train, heldout, all")
    out: str = option("runs/train", "the run folder; rerun with the same folder to resume")
    trainer: str = option("auto", "trl, wmrl (the project's, no TRL needed) or auto (trl when installed)",
                           choices=TRAINERS)
    world_model: str | None = option(
        None, "train with WMRL, scored by this world model: static, learned, openai:URL[#MODEL], vllm:PATH, "
        "hf:PATH (default: plain GRPO, every program runs)")
    anchor_rate: float = option(MixingConfig.anchor_rate, "WMRL: share of groups executed for real")
    adaptive: bool = option(MixingConfig.adaptive, "WMRL: the exploitation monitor moves the anchor rate")
    min_rate: float = option(MixingConfig.min_rate, "lowest adaptive anchor rate")
    max_rate: float = option(MixingConfig.max_rate, "highest adaptive anchor rate")
    weighting: str = option(MixingConfig.weighting, "WMRL: inverse-variance (anchor and world-model gradients "
                            "weighted by 1/their noise) or pooled (ablation)", choices=WEIGHTINGS)
    updates: int = option(20, "policy updates (TRL: max_steps)")
    group_size: int = option(4, "completions per prompt (TRL: num_generations)")
    groups_per_update: int = option(4, "prompts per update (per process under accelerate)")
    micro_batch_size: int = option(4, "completions per forward/backward pass; divides group_size x groups_per_update")
    lr: float = option(1e-6, "learning rate (AdamW)")
    max_new_tokens: int = option(512, "most tokens per completion")
    temperature: float = option(1.0, "sampling temperature")
    lora_r: int = option(0, "LoRA rank (0: train all weights)")
    generation: str = option("auto", "transformers, vllm or auto (vLLM when installed and on a GPU)",
                              choices=("auto", "transformers", "vllm"))
    vllm_mode: str = option("colocate", "trl trainer: colocate (vLLM shares the training GPUs) or server "
                             "(`trl vllm-serve` at --vllm-server)", choices=("colocate", "server"))
    vllm_server: str = option("http://127.0.0.1:8000", "base URL of `trl vllm-serve` (vllm_mode=server)")
    executor: str = option("auto", "sandbox backend: auto, warm, bwrap, gvisor, docker, ray, local")
    ray_address: str | None = option(None, "Ray cluster for --executor ray (default: $RAY_ADDRESS)")
    workers: int = option(2, "programs the sandbox runs at once (a generation batch's episodes run concurrently)")
    time_limit: float | None = option(None, "CPU-seconds a program may run (wall: 4x; default: the task's)")
    save_steps: int = option(10, "updates between checkpoints (the last update is always saved)")
    seed: int = option(0, "seeds prompts, sampling and anchor selection")
    report_to: str = option("none", "trl trainer: none, tensorboard, wandb, ... (TRL's report_to)")
    quiet: bool = option(False, "no progress bars")

    def __post_init__(self) -> None:
        if isinstance(self.tasks, str):
            self.tasks = comma_list(self.tasks)
        if not self.model:
            raise ValueError("no model: give --model PATH, a local Hugging Face model folder (or model: in --config)")
        if saved_weighting(self.weighting) != self.weighting:
            raise ValueError(f"--weighting {self.weighting} was renamed {saved_weighting(self.weighting)} in 0.2 and "
                             "removed in 0.3: give the new name")
        for f in fields(self):
            choices = f.metadata.get("choices")
            if choices and getattr(self, f.name) not in choices:
                value = getattr(self, f.name)
                raise ValueError(f"--{flag(f.name)} must be one of {', '.join(choices)}, got {value!r}")
        at_least_1 = ("updates", "groups_per_update", "micro_batch_size", "max_new_tokens", "workers", "save_steps")
        for name in at_least_1:
            _require(getattr(self, name) >= 1, name, "must be at least 1")
        _require(self.group_size >= 2, "group_size", "must be at least 2 (advantages are relative to the group)")
        _require(self.lr > 0 and self.temperature > 0, "lr", "and --temperature must be positive")
        _require(self.lora_r >= 0, "lora_r", "must be 0 (no LoRA) or a positive rank")
        _require(self.time_limit is None or self.time_limit > 0, "time_limit", "must be a positive number of seconds")
        batch = self.group_size * self.groups_per_update
        _require(batch % self.micro_batch_size == 0, "micro_batch_size",
                 f"must divide group_size x groups_per_update = {batch}")
        if self.world_model:
            from wmrl_envs.world_models.factory import check_spec

            check_spec(self.world_model)
            self.mixing()  # raises on bad rates

    @classmethod
    def from_yaml(cls, path: str | os.PathLike, **overrides: Any) -> TrainConfig:
        """The config in YAML file ``path`` (its keys are the field names), with ``overrides``."""
        return load_yaml(cls, path, **overrides)

    @staticmethod
    def saved_names(data: dict) -> dict:
        """A saved file's settings under their current names (``load_yaml``): a run saved with
        ``weighting: energy`` (before 0.2) resumes as the same run."""
        return {**data, "weighting": saved_weighting(data["weighting"])} if "weighting" in data else data

    def mixing(self) -> MixingConfig:
        """The WMRL ``MixingConfig`` of these settings."""
        return MixingConfig(anchor_rate=self.anchor_rate, adaptive=self.adaptive, min_rate=self.min_rate,
                            max_rate=self.max_rate, weighting=self.weighting, seed=self.seed)

    def resolved(self) -> TrainConfig:
        """These settings with ``trainer="auto"`` decided: trl when it can be imported."""
        if self.trainer != "auto":
            return self
        return _replace(self, trainer="trl" if check_trl() is None else "wmrl")

    def use_vllm(self) -> bool:
        """Whether the trl trainer generates with vLLM."""
        if self.generation == "auto":
            import torch

            return check_vllm() is None and torch.cuda.is_available()
        return self.generation == "vllm"

    def problems(self) -> list[str]:
        """Health checks (:func:`wmrl_agents.health.preflight`): one line per problem."""
        trl = self.trainer == "trl"
        server = trl and self.vllm_mode == "server" and self.generation != "transformers"
        problems = preflight(model=self.model, world_model=self.world_model, trl=trl, executor=self.executor,
                             ray_address=self.ray_address, vllm_server=self.vllm_server if server else None)
        if self.generation == "vllm" and (no_vllm := check_vllm()) is not None:
            problems.append(no_vllm)
        if not trl and self.vllm_mode == "server" and self.generation == "vllm":
            problems.append("--vllm-mode server needs --trainer trl (the wmrl trainer runs vLLM in its own process)")
        return problems


def _require(ok: bool, name: str, what: str) -> None:
    if not ok:
        raise ValueError(f"--{flag(name)} {what}")


def _replace(config: TrainConfig, **changes: Any) -> TrainConfig:
    return TrainConfig(**{**asdict(config), **changes})


# -- the command line ---------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--flag`` per :class:`TrainConfig` field (help from its metadata), plus ``--config``.
    Flags not given stay out of the namespace, so they never override the YAML file."""
    config_flags.add_arguments(parser, TrainConfig)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The settings of a parsed command line: ``--config`` file, then the flags given."""
    return from_args(TrainConfig, args)


# -- envs ---------------------------------------------------------------------------------------
def make_env(
    env_id: str,
    tasks: Iterable[str] | None = None,
    split: str = "train",
    executor: str = "auto",
    time_limit: float | None = None,
    world_model: str | None = None,
    mixer: MixingState | None = None,
    workers: int | None = None,
):
    """Env ``env_id`` whose sandbox runs ``workers`` programs at once (episodes run concurrently on
    spawned copies of it); with a ``world_model`` spec it is wrapped in a ``MixedRewardWrapper``
    that feeds ``mixer`` (:func:`run_mixer`), the one the trainer is handed too."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401 - registers the env ids
    from wmrl_agents.compare import program_limits

    kwargs = {"split": split, "executor": executor, "workers": workers, **program_limits(time_limit)}
    if tasks:
        kwargs["tasks"] = list(tasks)
    try:
        env = gym.make(env_id, **kwargs)
    except gym.error.Error as e:
        raise ValueError(f"cannot make env {env_id!r}: {e} (the text envs: WMRL/MLEDojo-v0, WMRL/DSBench-v0)") from None
    if world_model is None:
        return env
    from wmrl_envs.world_models.factory import make_world_model
    from wmrl_envs.wrappers import MixedRewardWrapper

    return MixedRewardWrapper(env, make_world_model(world_model), mixer)


def run_mixer(mixing: MixingConfig | None, state_path: str | os.PathLike | None) -> MixingState | None:
    """A WMRL run's one mixer (None for plain GRPO, ``mixing`` None), kept at ``state_path``: the
    env's ``MixedRewardWrapper`` feeds it and the trainer is handed it (:func:`make_env`)."""
    return None if mixing is None else MixingState(mixing, state_path=state_path)


# -- training -----------------------------------------------------------------------------------
def train(config: TrainConfig) -> dict:
    """Run (or resume) the training ``config`` describes; returns the summary (:func:`format_summary`)."""
    cfg = config.resolved()
    problems = cfg.problems()
    if problems:
        raise PreflightError(problems)
    if cfg.ray_address:
        os.environ["RAY_ADDRESS"] = cfg.ray_address  # what ray.init(address=None) connects to
    if cfg.quiet:
        _hide_library_bars()
    out = Path(cfg.out)
    # a run folder that holds another run's settings is refused (its checkpoints would not fit)
    check_resume(cfg, out / "config.yaml", RESUMABLE)
    save_yaml(cfg, out / "config.yaml")  # atomic: processes under accelerate read it as they start
    mixer = run_mixer(cfg.mixing() if cfg.world_model else None, out / "mixing.json")
    env = make_env(cfg.env, cfg.tasks, cfg.split, cfg.executor, cfg.time_limit, cfg.world_model, mixer, cfg.workers)
    t0 = time.perf_counter()
    try:
        run = _train_trl if cfg.trainer == "trl" else _train_wmrl
        summary = run(cfg, env, mixer, out)
    finally:
        env.close()
    return {"trainer": cfg.trainer, "mode": "wmrl" if cfg.world_model else "grpo", **summary,
            "wall_s": time.perf_counter() - t0, "final_model": str(out / "final")}


def _hide_library_bars() -> None:
    """No progress bars from transformers (weights loading, saving) and datasets (writing)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    if importlib.util.find_spec("datasets") is not None:
        from datasets.utils import logging as ds_logging

        ds_logging.disable_progress_bar()


def _in_flight(env: Any, batch: int) -> int | None:
    """Episodes run at once: the whole batch, so that its generations and world-model predictions
    go out together (the sandbox's workers bound the executions); one at a time for an env that
    cannot be copied for threads."""
    from wmrl_envs.copies import can_spawn

    return batch if can_spawn(env) else None


class _VLLMArgs(TypedDict, total=False):
    """The ``GRPOConfig`` arguments that turn on vLLM generation."""

    use_vllm: bool
    vllm_mode: str
    vllm_server_base_url: str


def _train_trl(cfg: TrainConfig, env: Any, mixer: MixingState | None, out: Path) -> dict:
    import torch
    from transformers.trainer_callback import PrinterCallback
    from transformers.trainer_utils import get_last_checkpoint
    from trl import GRPOConfig, GRPOTrainer

    from wmrl_agents.trl import EnvReward, WeightedAdvantageReward, build_dataset, check_config

    batch = cfg.group_size * cfg.groups_per_update
    concurrency = _in_flight(env, batch)
    reward = (WeightedAdvantageReward(env, concurrency=concurrency, mixer=mixer) if mixer is not None
              else EnvReward(env, concurrency=concurrency))  # the mixer's MixingConfig (cfg.mixing()) weighs
    cuda = torch.cuda.is_available()
    vllm: _VLLMArgs = {"use_vllm": True, "vllm_mode": cfg.vllm_mode} if cfg.use_vllm() else {}
    if vllm and cfg.vllm_mode == "server":
        vllm["vllm_server_base_url"] = cfg.vllm_server
    args = GRPOConfig(
        output_dir=str(out), max_steps=cfg.updates, num_generations=cfg.group_size,
        per_device_train_batch_size=cfg.micro_batch_size, gradient_accumulation_steps=batch // cfg.micro_batch_size,
        learning_rate=cfg.lr, max_completion_length=cfg.max_new_tokens, temperature=cfg.temperature,
        scale_rewards="none", logging_steps=1, save_strategy="steps", save_steps=cfg.save_steps,
        report_to=cfg.report_to, seed=cfg.seed, disable_tqdm=cfg.quiet, use_cpu=not cuda,
        bf16=cuda and torch.cuda.is_bf16_supported(), **vllm,
    )
    check_config(args, [reward])
    dataset = build_dataset(env, range(cfg.updates * cfg.groups_per_update))
    peft = None
    if cfg.lora_r:
        from peft import LoraConfig

        peft = LoraConfig(r=cfg.lora_r, task_type="CAUSAL_LM")
    trainer = GRPOTrainer(model=cfg.model, reward_funcs=[reward], args=args, train_dataset=dataset, peft_config=peft)
    if cfg.quiet:  # without a progress bar, transformers prints every log row instead
        trainer.remove_callback(PrinterCallback)
    last = get_last_checkpoint(str(out))
    trainer.train(resume_from_checkpoint=last)
    trainer.save_model(str(out / "final"))
    rows = [h for h in trainer.state.log_history if "wmrl/reward" in h]
    n = trainer.accelerator.num_processes  # wmrl/* metrics are means over processes
    predicted = ("wmrl/outcome/predicted", "wmrl/outcome/world_model_failure")
    return {"resumed_from": last, **_totals(rows, "wmrl/real_episodes", predicted, "wmrl/exec_s", "wmrl/reward", n)}


def _train_wmrl(cfg: TrainConfig, env: Any, mixer: MixingState | None, out: Path) -> dict:
    import torch

    from wmrl_agents.compare import _by_update
    from wmrl_agents.grpo import GRPOTrainer
    from wmrl_agents.llm import LLMPolicy
    from wmrl_envs.jsonl import read_records

    if not cfg.model:  # TrainConfig refuses a missing model; this is one set to None afterwards
        raise ValueError("TrainConfig.model is None: give --model PATH, a local Hugging Face model folder")
    torch.manual_seed(cfg.seed)  # a LoRA adapter's initial weights
    policy = LLMPolicy(cfg.model, lora={"r": cfg.lora_r} if cfg.lora_r else None, lr=cfg.lr,
                       max_new_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                       micro_batch_size=cfg.micro_batch_size, checkpoint_dir=out / "policy", generation=cfg.generation)
    trainer = GRPOTrainer(env, policy, list(env.unwrapped.task_ids), cfg.group_size, cfg.groups_per_update,
                          seed=cfg.seed, log_dir=out, progress=not cfg.quiet, mixer=mixer,
                          checkpoint_every=cfg.save_steps,
                          concurrency=_in_flight(env, cfg.group_size * cfg.groups_per_update))
    resumed = trainer.maybe_resume()
    trainer.train(cfg.updates, resume=False)
    policy.model.save_pretrained(out / "final")
    policy.tokenizer.save_pretrained(out / "final")
    rows = _by_update(read_records(out / "metrics.jsonl"))
    return {"resumed_from": str(out / "checkpoint.json") if resumed else None,
            **_totals(rows, "executed_episodes", ("outcome/predicted", "outcome/world_model_failure"),
                      "cost/exec_s", "reward_mean")}


def _totals(rows: list[dict], real: str, predicted: tuple[str, ...], exec_s: str, reward: str, scale: int = 1) -> dict:
    """Sums over the run's per-update log rows (``scale``: processes whose mean each row holds)."""
    return {
        "updates": len(rows),
        "real_executions": int(round(scale * sum(r.get(real, 0) for r in rows))),
        "predicted_episodes": int(round(scale * sum(r.get(k, 0) for r in rows for k in predicted))),
        "exec_s": scale * float(sum(r.get(exec_s, 0.0) for r in rows)),
        "reward_mean": float(sum(r[reward] for r in rows) / len(rows)) if rows else None,
    }


def format_summary(summary: dict) -> str:
    """The end-of-run lines ``wmrl train`` prints."""
    reward = "-" if summary["reward_mean"] is None else f"{summary['reward_mean']:.4f}"
    resumed = f" (resumed from {summary['resumed_from']})" if summary.get("resumed_from") else ""
    return "\n".join([
        f"{summary['mode']} with the {summary['trainer']} trainer: {summary['updates']} updates{resumed}",
        f"real executions {summary['real_executions']}, predicted episodes {summary['predicted_episodes']}, "
        f"execution {summary['exec_s']:.1f} s, mean reward {reward}, wall {summary['wall_s']:.1f} s",
        f"final model: {summary['final_model']}",
    ])


# -- an LLM agent for `wmrl compare` ---------------------------------------------------------------
def llm_agent(model: str, checkpoint_root: str | os.PathLike | None = None, **policy_kwargs: Any):
    """The ``llm`` agent of :func:`wmrl_agents.compare.compare`: ``f(seed)`` builds an ``LLMPolicy``
    of ``model`` (``policy_kwargs``: its other arguments). Each policy checkpoints into its own new
    folder under ``checkpoint_root`` (needed when the study has an ``out`` folder; its trainer
    checkpoints name the folder)."""
    import tempfile

    def llm(seed: int):
        import torch

        from wmrl_agents.llm import LLMPolicy

        torch.manual_seed(seed)
        folder = None
        if checkpoint_root is not None:
            Path(checkpoint_root).mkdir(parents=True, exist_ok=True)
            folder = tempfile.mkdtemp(prefix=f"seed{seed}-", dir=checkpoint_root)
        return LLMPolicy(model, checkpoint_dir=folder, **policy_kwargs)

    return llm
