"""The text envs' adapter of ``wmrl compare`` (``WMRL/MLEDojo-v0``, ``WMRL/DSBench-v0``).

Programs run in the sandbox through a shared outcome table (``wmrl_envs/replay.py``): a program
runs once per task content, and every reuse is charged its recorded CPU-seconds. Policies are scored
by real execution on the ``heldout`` tasks (``wmrl_agents/evaluate.py``: exact for a finite policy,
greedy + sampled programs otherwise) and, with ``dsbench=True``, on ``WMRL/DSBench-v0`` too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium as gym

import wmrl_envs  # noqa: F401 - registers the env ids
from wmrl_agents.evaluate import evaluate_policies
from wmrl_agents.grpo import env_task_ids
from wmrl_envs.replay import OutcomeStore, ReplayWrapper, default_store, store_name
from wmrl_envs.wrappers import MixedRewardWrapper, MixingState, WorldModelLike

AGENTS = ("composer", "template", "llm")
LLM_NEW_TOKENS = (32, 512)  # --agent llm: new tokens per program at the smallest budget, and at --budget 1
EVAL_SAMPLES = 2  # sampled programs per held-out task at --budget 1
LLM_NEEDS_MODEL = ("agent 'llm' needs a model: wmrl compare --agent llm --model PATH "
                   "(in Python: agent=wmrl_agents.train.llm_agent(PATH))")


def make_policy(agent: str | Callable[[int], object], seed: int):
    """A fresh policy of kind ``agent`` (same seed: same initial parameters); ``agent`` may also be
    a function of the seed that builds one."""
    if callable(agent):
        return agent(seed)
    if agent == "composer":
        from wmrl_agents.composer import ComposerPolicy

        return ComposerPolicy(seed=seed)
    if agent == "template":
        from wmrl_agents.template import TemplatePolicy

        return TemplatePolicy(seed=seed)
    if agent == "llm":
        raise ValueError(LLM_NEEDS_MODEL)
    raise ValueError(f"unknown agent {agent!r}; choose from {', '.join(AGENTS)}")


def llm_budget(scale: float, max_new_tokens: int | None = None, eval_samples: int | None = None) -> tuple[int, int]:
    """``(new tokens per program, sampled programs per held-out task)`` of ``--agent llm`` at
    ``--budget scale``; given values win. An LLM's cost is generation, so a budget below 1 shrinks
    what it generates, not only the updates: tokens ``512 × scale`` (at least 32), samples
    ``floor(2 × scale)`` (0 below 0.5: the greedy program alone). Above 1 only updates grow. Arms
    and held-out tasks are not scaled (the comparison and its scores stay the same; ``--arms``
    drops arms), and every arm shares one evaluation of the untrained model per seed. A real model
    needs its full programs: pass ``--max-new-tokens`` with a small budget on one."""
    if not scale > 0:
        raise ValueError(f"--budget must be a positive number, got {scale}")
    s = min(1.0, float(scale))
    low, high = LLM_NEW_TOKENS
    tokens = max_new_tokens if max_new_tokens is not None else max(low, round(high * s))
    return int(tokens), int(eval_samples if eval_samples is not None else int(EVAL_SAMPLES * s))


# The wall limit of a capped program, as a multiple of its CPU limit. The CPU limit is the cap; the
# wall limit only ends programs that wait. On a busy machine a program gets a fraction of a core, so
# a wall limit near the CPU limit ends it first, and the outcome is the load's, not the program's:
# at load 7 on 2 cores a 9 CPU-s program needs ~31 wall s. At 4x the CPU limit decides up to ~4
# runnable processes per core; waiting costs no CPU.
WALL_PER_CPU = 4.0


def program_limits(time_limit: float | None) -> dict:
    """The env keyword arguments that cap a program at ``time_limit`` CPU-seconds (wall:
    :data:`WALL_PER_CPU` ×)."""
    if time_limit is None:
        return {}
    if not time_limit > 0:
        raise ValueError(f"--time-limit must be a positive number of seconds, got {time_limit}")
    return {"limits": {"cpu_s": float(time_limit), "wall_s": WALL_PER_CPU * float(time_limit)}}


@dataclass
class TextWorld:
    """``wmrl compare``'s adapter for a text env.

    Args:
        env_id: the training env (its ``train`` split; evaluation on ``heldout``).
        agent: ``composer``, ``template``, or a function of the seed that builds a policy.
        world_model: the WMRL arms' world model, or a spec for ``make_world_model`` (each arm then
            builds its own, so a model that learns from anchors never carries one arm's pairs
            into another).
        env_kwargs: passed to ``gym.make`` (executor, ...; they override the limits and workers below).
        workers: programs in flight, end to end: the sandbox's slots and the env copies stepping
            at once, in training and evaluation.
        time_limit: CPU-seconds a program may run (wall: :data:`WALL_PER_CPU` ×), in place of the
            tasks' 60 s; None keeps the tasks' limits (legitimate composer programs need at most ~8 s).
        cache: the folder of the outcome tables (default: the user's shared ones).
        tasks: task ids per split (``{"train": [...], "heldout": [...]}``) to use fewer tasks.
        dsbench: also score every arm on ``WMRL/DSBench-v0`` at the end.
        progress: progress bars while programs are evaluated.
    """

    env_id: str = "WMRL/MLEDojo-v0"
    agent: str | Callable[[int], object] = "composer"
    world_model: str | WorldModelLike = "static"
    env_kwargs: dict = field(default_factory=dict)
    workers: int = 2
    time_limit: float | None = 20.0
    cache: Path | None = None
    tasks: dict[str, list[str]] = field(default_factory=dict)
    dsbench: bool = False
    progress: bool = True

    def __post_init__(self) -> None:
        program_limits(self.time_limit)  # raises on a bad limit
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1 (programs in flight), got {self.workers}")
        self._stores: dict[str, OutcomeStore] = {}

    def check(self) -> None:
        """A clear ``ValueError`` for a bad agent or world model, before anything runs."""
        if not callable(self.agent) and self.agent not in AGENTS:
            raise ValueError(f"unknown agent {self.agent!r}; choose from {', '.join(AGENTS)}")
        if self.agent == "llm":
            raise ValueError(LLM_NEEDS_MODEL)
        if isinstance(self.world_model, str):
            from wmrl_envs.world_models.factory import check_spec

            check_spec(self.world_model)

    def policy(self, seed: int):
        return make_policy(self.agent, seed)

    def store(self, env_id: str, table: str = "") -> OutcomeStore:
        """The outcome table of ``env_id`` (one per env id, shared by all seeds and arms), or its
        ``table="predictions"``: the static world model's, recorded."""
        key = f"{env_id}:{table}" if table else env_id
        if key not in self._stores:
            self._stores[key] = (default_store(env_id, table) if self.cache is None
                                 else OutcomeStore(self.cache / store_name(env_id, table)))
        return self._stores[key]

    def make(self, env_id: str, split: str) -> Callable[[], gym.Env]:
        kw = {**program_limits(self.time_limit), "workers": self.workers, **self.env_kwargs,
              **({"tasks": self.tasks[split]} if split in self.tasks else {})}
        return lambda: gym.make(env_id, split=split, **kw)

    def train_envs(self, mixer: MixingState | None) -> list[gym.Env]:
        """Copies of the training env over the outcome table; with ``mixer`` (a WMRL arm's) each is
        a ``MixedRewardWrapper`` feeding it. A failed proxy prediction (a program too good to be a
        model, a split that cannot be built) runs the program for real: the static model would pay
        a memorised lookup more than a weak honest program (``benchmarks/memorisation.py``)."""
        envs: list[gym.Env] = [ReplayWrapper(self.make(self.env_id, "train")(), self.store(self.env_id))
                               for _ in range(self.workers)]
        if mixer is None:
            return envs
        from wmrl_envs.world_models.factory import make_world_model

        executor = self.env_kwargs.get("executor")
        wm = (make_world_model(self.world_model, executor if isinstance(executor, str) else None,
                               record=self.store(self.env_id, "predictions"))
              if isinstance(self.world_model, str) else self.world_model)
        proxy = isinstance(self.world_model, str) and self.world_model.partition(":")[0] == "proxy"
        return [MixedRewardWrapper(e, wm, mixer, on_wm_failure="execute" if proxy else "static") for e in envs]

    def train_tasks(self, envs: list[gym.Env]) -> list[str]:
        return env_task_ids(envs[0])

    def evaluate(self, policy, seed: int, samples: int) -> dict:
        """``{"expected", "greedy", "per_task"}`` of real execution on the held-out tasks."""
        return self._score(policy, seed, samples, self.env_id, "heldout")

    def final_extras(self, policy, seed: int, samples: int) -> dict:
        """What only the final policy is scored on: DSBench, when asked."""
        if not self.dsbench:
            return {}
        ds = self._score(policy, seed, samples, "WMRL/DSBench-v0", "all")
        return {"dsbench": ds["expected"], "dsbench_greedy": ds["greedy"], "dsbench_per_task": ds["per_task"]}

    def _score(self, policy, seed: int, samples: int, env_id: str, split: str) -> dict:
        return evaluate_policies(self.make(env_id, split), {"policy": policy}, self.workers, self.store(env_id),
                                 progress=self.progress, samples=samples, seed=seed)["policy"]

    def describe(self) -> dict:
        agent = self.agent if isinstance(self.agent, str) else getattr(self.agent, "__name__", repr(self.agent))
        return {"env_id": self.env_id, "agent": agent, "dsbench": self.dsbench, "time_limit": self.time_limit,
                "world_model": self.world_model if isinstance(self.world_model, str) else type(self.world_model).__name__,
                "outcome_table": {key: {"entries": len(st), "hits": st.hits, "misses": st.misses}
                                  for key, st in self._stores.items()}}
