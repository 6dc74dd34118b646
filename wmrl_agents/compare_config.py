"""``CompareConfig``: every setting of ``wmrl compare`` in one dataclass (budget, mixing, world model,
env family), the command line generated from it (:mod:`wmrl_agents.config_flags`, as ``wmrl
train``), saved to ``out/config.yaml`` and checked when a run folder is resumed.

A run folder holds finished arms (``seed<N>/<arm>/result.json``) that a rerun reads back instead of
training them again, so a rerun with other settings would mix two studies in one table: it is
refused with the settings that differ, unless they are ones a resumed run may change
(:data:`RESUMABLE`: more seeds or arms, where programs run, how it reports). A folder written
before ``config.yaml`` existed is resumed as it is and gets one.

Settings that contradict each other (a starting anchor rate outside ``--min-rate``..``--max-rate``
with ``--adaptive``, a rate range without anything adaptive, ``--workers 0``, an unknown key in
``--config``) are one-line errors naming the setting, raised before anything runs.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from wmrl_agents.compare import ARMS, GUARD, Budget, EnvFamily, check_arms
from wmrl_agents.compare_libero import AGENTS as LIBERO_AGENTS
from wmrl_agents.compare_libero import ENV_ID as LIBERO
from wmrl_agents.compare_text import AGENTS, LLM_NEEDS_MODEL, llm_budget, program_limits
from wmrl_agents.config_flags import check_resume, comma_list, default_of, flag, option, save_yaml
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.mixing.config import NORMALIZE

__all__ = ["RESUMABLE", "CompareConfig", "run_compare"]

# Settings a resumed run may change: which seeds and arms (each is trained on its own), where
# programs run and how many at once, how it reports.
RESUMABLE = ("out", "seeds", "seed_list", "arms", "workers", "executor", "quiet")
_MIXING = {f.name: default_of(f) for f in fields(MixingConfig)}  # the rates' defaults, defined once there


@dataclass
class CompareConfig:
    """Settings of ``wmrl compare`` (TRL style: each field's help is in ``metadata["help"]``; bad
    values raise a one-line ``ValueError`` naming the flag). ``None`` takes the env family's
    default; :meth:`resolved` fills those in, as saved to ``out/config.yaml``."""

    budget: float = option(1.0, f"scales the number of policy updates (1.0: 20 updates; {LIBERO}: 8)", metavar="X")
    agent: str | None = option(
        None, f"the policy to train: text envs {', '.join(AGENTS)} (default: composer; see the README for why); "
        f"{LIBERO}: {', '.join(LIBERO_AGENTS)} (default: bc, the SFT policy)")
    model: str | None = option(None, "--agent llm: a local Hugging Face model folder", metavar="PATH")
    max_new_tokens: int | None = option(
        None, "--agent llm: most tokens per program (default: 512 × --budget up to 1, at least 32; "
        "docs/llm.md says how the budget scales an LLM)", metavar="N")
    env: str = option("WMRL/MLEDojo-v0", f"the training env id: a text env, or {LIBERO}", metavar="ID")
    arms: list[str] = option(["real", "wmrl"], f"comma-separated arms from {', '.join(ARMS)} (and {GUARD}); the "
                             "ablations are opt-in", metavar="A,B")
    seeds: int = option(1, "seeds 0..N-1 per arm; tables give mean and 95% interval", metavar="N")
    seed_list: list[str] = option([], "these seeds instead of --seeds (e.g. 5,6): processes given other seeds of one "
                                  "--out run side by side, and a run with the whole list merges them into one "
                                  "results.json", metavar="I,J")
    match_compute: float | None = option(
        None, "R: the mixed arms train until they have spent 1/R of the real arm's compute on the same seed (same "
        "batch shape, more or fewer updates), and the real arm is also scored at the compute each mixed arm spent "
        "in the budget's updates (summary[arm]['equal_compute']); 0: every arm runs the budget's updates (default: "
        f"3, the paper's claim; {LIBERO}: 0)", metavar="R")
    eval_every: int | None = option(
        None, f"updates between held-out evaluations (curve points; default: 10; {LIBERO}: 4)", metavar="N")
    eval_samples: int | None = option(
        None, "sampled programs per held-out task for policies that cannot be enumerated (default: 2; "
        f"--agent llm: floor(2 × --budget) up to 2); {LIBERO}: sampled episodes per held-out init state besides "
        "the mean action (default: 0)", metavar="N")
    dsbench: bool = option(True, "also score every arm on WMRL/DSBench-v0 at the end (text envs; --no-dsbench: not)")
    time_limit: float = option(20.0, "CPU-seconds a program may run in training and evaluation (the tasks' own: 60)",
                               metavar="S")
    workers: int = option(2, "programs run at once, end to end: the sandbox's slots and the episodes in flight, "
                          "in training and evaluation (text envs)", metavar="N")
    executor: str = option("auto", "sandbox backend: auto, warm, bwrap, gvisor, docker, ray, local", metavar="NAME")
    out: str | None = option(None, "the run folder: DIR/config.yaml, DIR/results.json, DIR/compare.png; rerun with "
                             "the same folder to resume (other settings are refused)", metavar="DIR")
    world_model: str | None = option(
        None, "the WMRL arms' world model: static (default), learned (fits on the anchor pairs), "
        "proxy[:rows=N,board=proxy|task] (runs each distinct program once on a split of the public train file; "
        f"costs a sandbox run), or an LLM spec as in `wmrl predict`; {LIBERO}: predicate (default), "
        "learned-progress:PATH (python -m wmrl_agents.progress_fit) or robometer:PATH", metavar="SPEC")
    anchor_rate: float = option(_MIXING["anchor_rate"], "share of groups the WMRL arms execute for real (with "
                                "--adaptive: the starting rate)", metavar="R")
    adaptive: bool = option(False, "let the exploitation monitor move the anchor rate between --min-rate and --max-rate")
    min_rate: float = option(_MIXING["min_rate"], "lowest adaptive anchor rate", metavar="R")
    max_rate: float = option(_MIXING["max_rate"], "highest adaptive anchor rate", metavar="R")
    min_wm_spread: float = option(_MIXING["min_wm_spread"], "the WMRL arms leave out of the update a world-model "
                                  "group whose rewards span less than this (0: none)", metavar="X")
    calibration: str = option(_MIXING["calibration"], "the WMRL arms' debiasing: pooled (one isotonic map) or "
                              "per-task (each task's map blended with the pooled one by pair count)",
                              choices=("pooled", "per-task"))
    normalize: str = option(NORMALIZE, "every arm's GRPO advantages: none (Dr. GRPO: r - group mean) or "
                            "group (also divided by the group's std, as the original GRPO)",
                            choices=("none", "group"))
    tasks: list[str] | None = option(
        None, "comma-separated ids of the tasks to train on, as in `wmrl train` (default: every task of the train "
        f"split; {LIBERO}: libero_10 indices or names, default 2,5, where the SFT policy sometimes succeeds)",
        metavar="ID,ID")
    demos: str | None = option(None, "expert demonstrations for the SFT policy (default: recorded into the cache on "
                               "first use)", group=LIBERO, metavar="FILE")
    wm_horizon: int = option(100, "steps of a world-model episode", group=LIBERO, metavar="N")
    max_steps: int = option(400, "the env's episode length", group=LIBERO, metavar="N")
    eval_inits: int = option(3, "init states per task of --init-split scored at every checkpoint", group=LIBERO, metavar="N")
    init_split: str = option("dev", "the init states scored: dev (where every setting is chosen) or test (the final "
                             "table only; refused where the demonstrations or the progress model saw a test state)",
                             group=LIBERO, choices=("dev", "test"))
    bc_epochs: int = option(100, "behaviour-cloning epochs of the SFT policy", group=LIBERO, metavar="N")
    policy_lr: float | None = option(None, "Adam learning rate of every arm's GRPO policy updates (default: the agent's; "
                                     "bc 1e-5)", group=LIBERO, metavar="LR")
    quiet: bool = option(False, "no progress bars")

    def __post_init__(self) -> None:
        for name in ("arms", "tasks", "seed_list"):
            if isinstance(getattr(self, name), str):
                setattr(self, name, comma_list(getattr(self, name)))
        self.arms = [str(a) for a in self.arms]
        self.tasks = None if self.tasks is None else [str(t) for t in self.tasks]
        self.seed_list = [str(x) for x in self.seed_list]
        _require(all(x.isdigit() for x in self.seed_list) and len(set(self.seed_list)) == len(self.seed_list),
                 "seed_list", f"must be distinct non-negative integers, got {','.join(self.seed_list)}")
        if not self.budget > 0:
            raise ValueError(f"--budget must be a positive number, got {self.budget}")
        check_arms(self.arms, range(self.seeds))
        _require(self.normalize in ("none", "group"), "normalize", f"must be none or group, got {self.normalize!r}")
        _require(self.init_split in ("dev", "test"), "init_split", f"must be dev or test, got {self.init_split!r}")
        for name in ("workers", "wm_horizon", "max_steps", "eval_inits", "bc_epochs"):
            _require(getattr(self, name) >= 1, name, f"must be at least 1, got {getattr(self, name)}")
        _require(self.policy_lr is None or self.policy_lr > 0, "policy_lr", f"must be positive, got {self.policy_lr}")
        _require(self.match_compute is None or self.match_compute == 0 or self.match_compute >= 1, "match_compute",
                 f"must be 0 (off) or at least 1 (the mixed arms' share of real's compute is 1/R), got {self.match_compute}")
        if self.text:
            program_limits(self.time_limit)  # raises on a bad --time-limit
        if self.agent == "llm" and not self.model:
            raise ValueError(LLM_NEEDS_MODEL)
        self._check_rates()
        self.budget_plan()  # raises on a bad --eval-every or --eval-samples

    def _check_rates(self) -> None:
        """The rates must agree with each other and with what moves them: the adaptive rate starts
        between its bounds, and bounds need something adaptive (``--adaptive`` or the guard arm)."""
        adaptive = self.adaptive or GUARD in self.arms
        try:
            self._mixing(adaptive)
        except ValueError as e:  # name the flag, not the library's field
            raise ValueError(re.sub(r"MixingConfig\.(\w+)", lambda m: f"--{flag(m[1])}", str(e))) from None
        bounded = [n for n in ("min_rate", "max_rate") if getattr(self, n) != _MIXING[n]]
        if bounded and not adaptive:
            raise ValueError(f"--{flag(bounded[0])} bounds an adaptive anchor rate, and nothing adapts it: give "
                             f"--adaptive (or the {GUARD} arm), or keep the fixed --anchor-rate alone")

    @property
    def text(self) -> bool:
        """Whether the env is a text env (programs in the sandbox) rather than LIBERO."""
        return self.env != LIBERO

    def resolved(self) -> CompareConfig:
        """These settings with the env family's defaults filled in (what ``config.yaml`` holds)."""
        return replace(self, **self._defaults())

    def _defaults(self) -> dict[str, Any]:
        """The env family's values of the settings left at None."""
        if self.text:
            default = {"agent": "composer", "world_model": "static", "eval_every": 10, "eval_samples": 2, "match_compute": 3.0}
        else:
            from wmrl_agents.compare_libero import BUDGET

            default = {"agent": "bc", "world_model": "predicate", "eval_every": BUDGET["eval_every"], "eval_samples": 0,
                       "match_compute": 0.0, "tasks": ["2", "5"]}
        if self.text and self.agent == "llm":
            tokens, samples = llm_budget(self.budget, self.max_new_tokens, self.eval_samples)
            default.update(max_new_tokens=tokens, eval_samples=samples)
        return {k: v for k, v in default.items() if getattr(self, k) is None}

    @staticmethod
    def saved_names(data: dict) -> dict:
        """A saved ``config.yaml`` under this version's meanings (``config_flags.load_yaml``): before
        0.3, ``tasks`` was LIBERO's alone and a text run saved its unused default ``[2, 5]``."""
        if data.get("env", "WMRL/MLEDojo-v0") != LIBERO and data.get("tasks") == ["2", "5"]:
            return {**data, "tasks": None}
        return data

    def mixing(self) -> MixingConfig:
        """The WMRL arms' ``MixingConfig`` (each arm sets its own seed, weighting and debiasing)."""
        return self._mixing(self.adaptive)

    def _mixing(self, adaptive: bool) -> MixingConfig:
        return MixingConfig(anchor_rate=self.anchor_rate, adaptive=adaptive, min_rate=self.min_rate,
                            max_rate=self.max_rate, min_wm_spread=self.min_wm_spread, calibration=self.calibration)

    def budget_plan(self) -> Budget:
        """The training each arm gets: the env family's default budget scaled by ``budget``."""
        from wmrl_agents.compare_libero import BUDGET

        defaults = self._defaults()
        spacing = {k: defaults.get(k, getattr(self, k)) for k in ("eval_every", "eval_samples")}
        base = {**({} if self.text else BUDGET), **spacing}
        return Budget(**base, match_compute=defaults.get("match_compute", self.match_compute) or None).scaled(self.budget)

    def family(self) -> EnvFamily:
        """The env family's adapter (text envs: ``TextWorld``; LIBERO: ``LiberoWorld``)."""
        r = self.resolved()
        if not self.text:
            from wmrl_agents.compare_libero import LiberoWorld

            return LiberoWorld(tasks=r.tasks, agent=r.agent, demos=r.demos, world_model=r.world_model,  # type: ignore[arg-type]
                               wm_horizon=r.wm_horizon, max_steps=r.max_steps, eval_inits=r.eval_inits,
                               init_split=r.init_split,
                               bc_epochs=r.bc_epochs, policy_lr=r.policy_lr, progress=not r.quiet)
        from wmrl_agents.compare_text import TextWorld

        agent: Any = r.agent
        if agent == "llm":
            from wmrl_agents.train import llm_agent

            agent = llm_agent(r.model, None if r.out is None else f"{r.out}/llm-checkpoints",  # type: ignore[arg-type]
                              max_new_tokens=r.max_new_tokens)
        return TextWorld(r.env, agent, r.world_model or "static", {"executor": r.executor}, r.workers, r.time_limit,
                         tasks={"train": r.tasks} if r.tasks else {}, dsbench=r.dsbench, progress=not r.quiet)


def _require(ok: bool, name: str, what: str) -> None:
    if not ok:
        raise ValueError(f"--{flag(name)} {what}")


def run_compare(config: CompareConfig) -> dict:
    """Check ``config`` (health of the model, world model and sandbox; the run folder's saved
    settings), save it to ``out/config.yaml``, and run the comparison (:func:`compare`)."""
    from wmrl_agents.compare import compare
    from wmrl_agents.health import PreflightError, preflight

    cfg = config.resolved()
    problems = preflight(model=cfg.model if cfg.agent == "llm" else None,
                         world_model=cfg.world_model if cfg.text else None,
                         executor=cfg.executor if cfg.text else None)
    if problems:
        raise PreflightError(problems)
    out = None if cfg.out is None else Path(cfg.out)
    if out is not None:
        check_resume(cfg, out / "config.yaml", RESUMABLE)
    family = cfg.family()
    family.check()
    if out is not None:
        save_yaml(cfg, out / "config.yaml")
    seeds = [int(x) for x in cfg.seed_list] if cfg.seed_list else cfg.seeds
    budget = cfg.budget_plan()
    with contextlib.ExitStack() as stack:
        if out is None and budget.match_compute is not None:  # the real arm's per-update policies live on disk
            out = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="wmrl-compare-")))
        return compare(family=family, budget=budget, arms=tuple(cfg.arms), seeds=seeds, mixing=cfg.mixing(), out=out,
                       progress=not cfg.quiet, normalize=cfg.normalize)
