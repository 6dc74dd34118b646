"""``wmrl compare``'s adapter for ``WMRL/LIBERO-Long-v0``: the robot in MuJoCo.

The agent is post-trained from an SFT policy: behaviour cloning (``wmrl_agents/bc.py``) on the
scripted expert's demonstrations from *train* init states (``wmrl_agents/demos.py``; recorded into
the cache on first use when no ``demos`` file is given). Training episodes start from train init
states only; a policy is scored by its deterministic (mean-action) success, and ``samples``
stochastic episodes each, from the first ``eval_inits`` *held-out* init states of every task.

The WMRL arms' world model is task progress (``PredicateProgress`` from the BDDL goal atoms, or a
Robometer checkpoint): a world-model episode stops at ``wm_horizon`` steps and is paid the debiased
progress there; anchor episodes run to the env's end and are paid success. Compute: simulator
seconds, world-model seconds and policy-update seconds, the same for every arm.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import wmrl_envs  # noqa: F401 - registers the env ids
from wmrl_agents import init_split as splits
from wmrl_agents.demos import Demos, record_demos, rollout
from wmrl_envs.mixing import MixingState

ENV_ID = "WMRL/LIBERO-Long-v0"
AGENTS = ("bc", "gaussian", "vla:PATH")
STATE_DIM = 151
# A real LIBERO episode simulates ~5 s on a CPU core. Groups of 8: at the SFT policy's success
# rates (0.2-0.6 on the default tasks) a group of 4 is often all-fail or all-success, which gives
# real GRPO no gradient at all (docs/embodied.md).
BUDGET = {"updates": 8, "group_size": 8, "groups_per_update": 2, "eval_every": 4}


class TrainInitStates(gym.Wrapper):
    """Resets start from a *train* init state of the task (``init_split.py``), so training never
    sees a dev or test one.

    The state is drawn from the GRPO group key (``options["group"]``) when there is one, so every
    episode of a group starts from the same state, as every completion of a GRPO group answers the
    same prompt: the group's advantages then compare actions, not easy starts with hard ones.
    Without a group key the reset seed draws it."""

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = dict(options or {})
        if options.get("task_id") is None:
            raise ValueError("TrainInitStates needs options['task_id'] to pick one of the task's train init states")
        if options.get("init_state") is None:
            from wmrl_envs.embodied.libero_env import resolve_task

            train = splits.init_split(resolve_task(options["task_id"]))["train"]
            group = options.get("group")
            key = seed if group is None else zlib.crc32(str(group).encode())
            options["init_state"] = train[int(np.random.default_rng(key).integers(len(train)))]
        return self.env.reset(seed=seed, options=options)


def progress_model(spec: Any):
    """``predicate`` (goal atoms), ``learned-progress:PATH`` (a progress model trained here,
    ``python -m wmrl_agents.progress_fit``), ``robometer:PATH`` (a local Robometer checkpoint), or
    a progress world model itself."""
    from wmrl_envs.world_models.learned_progress import LearnedProgress
    from wmrl_envs.world_models.progress import PredicateProgress, RobometerProgress

    if not isinstance(spec, str):
        if not hasattr(spec, "predict"):
            raise ValueError(f"a progress world model needs predict(context, observation), got {type(spec).__name__}")
        return spec
    kind, _, path = spec.partition(":")
    if kind == "predicate" and not path:
        return PredicateProgress()
    if kind == "robometer" and path:
        return RobometerProgress(path)
    if kind == "learned-progress" and path:
        return LearnedProgress(path)
    raise ValueError(f"unknown progress world model {spec!r}; use predicate, learned-progress:PATH or robometer:PATH")


def _check_progress(spec: Any) -> None:
    """``progress_model``'s checks without loading a Robometer checkpoint; a progress model whose
    state size is not the env's is refused here, before any simulation."""
    kind, _, path = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if kind == "robometer" and path and not Path(path).is_dir():
        raise ValueError(f"Robometer checkpoint folder {path!r} does not exist: pass a local path")
    if kind == "robometer" and path:
        return
    model = progress_model(spec)
    obs_dim = getattr(model, "obs_dim", STATE_DIM)
    if obs_dim != STATE_DIM:
        raise ValueError(f"the progress model takes {obs_dim}-D states, {ENV_ID} gives {STATE_DIM}: "
                         "it was trained on another env")


def _episodes_of(demos: Demos, tasks: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The steps of ``tasks``' demonstrations: observations, actions, task ids and the first step
    of every kept episode (action chunks never cross an episode's end)."""
    kept = [e for e in range(demos.episodes) if int(demos.episode_task[e]) in set(tasks)]
    if not kept:
        raise ValueError(f"the demonstrations hold no successful episode of tasks {list(tasks)}")
    rows = np.concatenate([np.arange(demos.episode_start[e], demos.episode_start[e] + demos.episode_length[e])
                           for e in kept])
    starts = np.cumsum([0] + [int(demos.episode_length[e]) for e in kept[:-1]])
    return demos.obs[rows], demos.actions[rows], demos.task[rows], starts


def _greedy(policy: Any) -> Callable[[Any, dict], np.ndarray]:
    """The policy's deterministic action as ``f(obs, info)``."""
    if hasattr(policy, "act_greedy"):
        return policy.act_greedy
    if hasattr(policy, "task_of"):  # task-conditioned (BC)
        return lambda obs, info: policy.act(obs, policy.task_of(info))
    return lambda obs, info: policy.act(obs)


@dataclass
class LiberoWorld:
    """``wmrl compare``'s adapter for ``WMRL/LIBERO-Long-v0`` (module docstring).

    Args:
        tasks: libero_10 task indices trained and scored.
        agent: ``bc`` (SFT on demonstrations, then GRPO), ``gaussian`` (from scratch),
            ``vla:PATH`` (a frozen OpenVLA/MiniVLA checkpoint with a trained Gaussian residual,
            ``wmrl_agents/residual.py``), or a function of the seed that builds a policy. A policy
            with ``needs_frames`` gets camera frames (``obs_mode="pixels_state"``).
        demos: a demonstrations file (``Demos.save``); None records ``demo_episodes`` per task.
        world_model: ``predicate``, ``learned-progress:PATH``, ``robometer:PATH``, or a progress
            model object. Robometer reads camera frames: the env then renders them
            (``obs_mode="pixels_state"``) and policies act on the ``"state"`` entry.
        wm_horizon: steps of a world-model episode.
        max_steps: the env's episode length.
        eval_inits: init states per task of ``init_split`` scored at every checkpoint.
        init_split: ``dev`` (every choice is made there) or ``test`` (the final table only; refused
            where the demonstrations or the progress model saw a test state: ``init_split.py``).
        bc_epochs: behaviour-cloning epochs of the SFT policy.
        bc: ``BCPolicy`` arguments of the SFT policy (hidden sizes, action ``chunk``, sampling
            ``init_log_std``, GRPO ``lr``, ...).
        policy_lr: the Adam learning rate of GRPO's policy updates (None: the agent's default;
            ``bc``: ``bc["lr"]``).
        demo_episodes: expert episodes per task recorded when ``demos`` is None.
        cache: where recorded demonstrations go (default: the user's cache).
        progress: progress lines while demonstrations are recorded.
    """

    tasks: Sequence[int] = (2, 5)
    agent: str | Callable[[int], object] = "bc"
    demos: str | Path | None = None
    world_model: Any = "predicate"
    wm_horizon: int = 100
    max_steps: int = 400
    eval_inits: int = 3
    init_split: str = "dev"
    bc_epochs: int = 100
    # GRPO's samples: std e^-3 (0.05 action units; at 0.22 nearly every sampled episode failed) and
    # Adam steps of 1e-5 (at 1e-4 both trained arms fell ~0.2-0.3 below SFT in 10 updates).
    bc: dict = field(default_factory=lambda: {"hidden": (512, 512), "chunk": 8, "init_log_std": -3.0, "lr": 1e-5})
    policy_lr: float | None = None
    demo_episodes: int = 10
    cache: Path | None = None
    progress: bool = True
    _sft: dict = field(default_factory=dict, repr=False)  # seed -> the fitted SFT policy's state
    _vla: Any = field(default=None, repr=False)
    _policy_frames: bool = field(default=False, repr=False)

    env_id = ENV_ID

    def check(self) -> None:
        """Bad tasks, agents, world models, a policy that does not fit the env, or no LIBERO stack
        installed: a ``ValueError`` before any simulation."""
        from wmrl_envs.embodied.suite import LiberoNotInstalled

        try:
            self._check()
        except LiberoNotInstalled as e:
            raise ValueError(str(e)) from None

    def _check(self) -> None:
        from wmrl_agents.bc import check_policy_fits_env
        from wmrl_envs.embodied.libero_env import resolve_task

        self.tasks = [resolve_task(t) for t in self.tasks]
        if not callable(self.agent) and self.agent not in AGENTS[:2] and not str(self.agent).startswith("vla:"):
            raise ValueError(f"unknown agent {self.agent!r} for {ENV_ID}; choose from {', '.join(AGENTS)}")
        if self.demos is not None and not Path(self.demos).is_file():
            raise ValueError(f"demonstrations file {str(self.demos)!r} does not exist "
                             "(record one with: python benchmarks/expert_rates.py --demos FILE)")
        _check_progress(self.world_model)
        if not (self.wm_horizon >= 1 and self.max_steps >= 1 and self.eval_inits >= 1):
            raise ValueError("wm_horizon, max_steps and eval_inits must be at least 1")
        self._check_split()
        policy = self.agent(0) if callable(self.agent) else self._bare(0)
        self._policy_frames = bool(getattr(policy, "needs_frames", False))
        env = self._env(frames=self._pixels or self._policy_frames)
        try:
            check_policy_fits_env(policy, env.unwrapped)
        finally:
            env.close()

    def _check_split(self) -> None:
        """The half exists and holds ``eval_inits`` states; a test study is refused where anything
        it starts from saw a test state (``init_split.refuse_leaks``), before any rollout."""
        if self.init_split not in ("dev", "test"):
            raise ValueError(f"--init-split must be dev or test, got {self.init_split!r}")
        size = len(splits.init_split(self.tasks[0])[self.init_split])
        if self.eval_inits > size:
            raise ValueError(f"--eval-inits {self.eval_inits}: the {self.init_split} half has {size} init states per task")
        if self.init_split != "test":
            return
        if self.demos is not None:
            d = Demos.load(self.demos)
            demo_inits = list(zip(d.episode_task.tolist(), d.episode_init.tolist()))
        else:  # recorded here from the first train states
            demo_inits = [(t, i) for t in self.tasks for i in splits.init_split(t)["train"][: self.demo_episodes]]
        model = progress_model(self.world_model)
        splits.refuse_leaks(self.tasks, demo_inits, getattr(model, "trained_on", None),
                            self.world_model if isinstance(self.world_model, str) else type(model).__name__)

    @property
    def _pixels(self) -> bool:
        from wmrl_envs.world_models.progress import RobometerProgress

        spec = self.world_model
        return isinstance(spec, RobometerProgress) or (isinstance(spec, str) and spec.startswith("robometer:"))

    def _env(self, task: int | None = None, frames: bool = False) -> gym.Env:
        """The env; with ``frames`` (a VLA policy, or training under Robometer) it also renders
        camera frames."""
        frames = frames or self._policy_frames
        return gym.make(ENV_ID, task_id=task, max_steps=self.max_steps,
                        obs_mode="pixels_state" if frames else "state")

    # -- policies ------------------------------------------------------------------------------
    def _bare(self, seed: int):
        key = "state" if self._pixels else None
        lr: dict[str, Any] = {} if self.policy_lr is None else {"lr": self.policy_lr}
        if str(self.agent).startswith("vla:"):
            from wmrl_agents.residual import ResidualVLAPolicy
            from wmrl_agents.vla import OpenVLAPolicy

            if self._vla is None:  # one frozen checkpoint for every seed and arm
                self._vla = OpenVLAPolicy(str(self.agent)[4:])
            return ResidualVLAPolicy(self._vla, seed=seed, **lr)
        if self.agent == "gaussian":
            from wmrl_agents.gaussian import GaussianPolicy

            return GaussianPolicy(STATE_DIM, seed=seed, obs_key=key, **lr)
        from wmrl_agents.bc import BCPolicy

        return BCPolicy(seed=seed, obs_key=key, **{**self.bc, **lr})

    def policy(self, seed: int):
        """A fresh policy; ``bc``: the seed's SFT policy (fitted once, every arm starts from it)."""
        if callable(self.agent):
            return self.agent(seed)
        policy = self._bare(seed)
        if self.agent == "bc":
            if seed not in self._sft:
                obs, actions, task, starts = _episodes_of(self.demonstrations(), self.tasks)
                policy.fit(obs, actions, task, epochs=self.bc_epochs, seed=seed, episode_start=starts)
                self._sft[seed] = policy.state_dict()
            policy.load_state_dict(self._sft[seed])
        return policy

    def demonstrations(self) -> Demos:
        """The demonstrations file, or the expert's, recorded into the cache on first use."""
        if self.demos is not None:
            return Demos.load(self.demos)
        from wmrl_envs.mle.build import cache_dir

        root = self.cache or cache_dir() / "embodied"
        path = root / f"demos-t{'-'.join(map(str, self.tasks))}-n{self.demo_episodes}.npz"
        if not path.exists():
            say = print if self.progress else None
            demos, _ = record_demos(self.tasks, self.demo_episodes, progress=say)
            demos.save(path)
        return Demos.load(path)

    # -- training and scoring ------------------------------------------------------------------
    def train_envs(self, mixer: MixingState | None) -> list[gym.Env]:
        """The training env; with ``mixer`` (a WMRL arm's) a ``MixedRewardWrapper`` feeding it."""
        env = TrainInitStates(self._env(frames=self._pixels and mixer is not None))
        if mixer is None:
            return [env]
        from wmrl_envs.wrappers import MixedRewardWrapper

        return [MixedRewardWrapper(env, progress_model(self.world_model), mixer, wm_horizon=self.wm_horizon)]

    def train_tasks(self, envs: list[gym.Env]) -> list[int]:
        return list(self.tasks)

    def evaluate(self, policy: Any, seed: int, samples: int) -> dict:
        """Success from the first ``eval_inits`` init states of ``init_split`` of every task: the mean action
        (``greedy``) and, with ``samples`` > 0, that many sampled episodes each (``expected``;
        else ``expected`` is the greedy success)."""
        greedy = _greedy(policy)
        per_task = {}
        for task in self.tasks:
            env = self._env(task)
            try:
                inits = splits.init_split(task)[self.init_split][: self.eval_inits]
                g = [rollout(env, greedy, i, seed=seed, on_reset=getattr(policy, "reset", None))["success"]
                     for i in inits]
                drawn = [self._sampled(env, policy, task, i, seed, k) for i in inits for k in range(samples)]
            finally:
                env.close()
            per_task[str(task)] = {"greedy": float(np.mean(g)), "expected": float(np.mean(drawn or g))}
        return {"expected": float(np.mean([v["expected"] for v in per_task.values()])),
                "greedy": float(np.mean([v["greedy"] for v in per_task.values()])), "per_task": per_task}

    @staticmethod
    def _sampled(env: gym.Env, policy: Any, task: int, init: int, seed: int, k: int) -> bool:
        rng = np.random.default_rng([seed, task, init, k])
        return rollout(env, lambda obs, info: policy.sample(obs, info, rng)[0], init, seed=seed,
                       on_reset=getattr(policy, "reset", None))["success"]

    def final_extras(self, policy: Any, seed: int, samples: int) -> dict:
        return {}

    def describe(self) -> dict:
        agent = self.agent if isinstance(self.agent, str) else getattr(self.agent, "__name__", repr(self.agent))
        wm = self.world_model if isinstance(self.world_model, str) else type(self.world_model).__name__
        return {"env_id": ENV_ID, "agent": agent, "tasks": list(self.tasks), "world_model": wm,
                "wm_horizon": self.wm_horizon, "max_steps": self.max_steps, "eval_inits": self.eval_inits,
                "init_split": self.init_split,
                "bc_epochs": self.bc_epochs, "demos": None if self.demos is None else str(self.demos),
                "policy_lr": self.policy_lr, "bc": {k: list(v) if isinstance(v, tuple) else v for k, v in self.bc.items()}}
