"""``wmrl compare``: the same agent trained with real-execution GRPO and with WMRL, side by side.

Every arm starts from the same seed and runs the same number of policy updates on the MLE-Dojo
``train`` tasks; then each is evaluated with real execution on the MLE-Dojo ``heldout`` tasks and on
``WMRL/DSBench-v0``: the score is the policy's expected reward per task (every recipe it could write
is run once, outcomes cached; see ``agents/evaluate.py``), and ``*_greedy`` is its most likely recipe's. Compute is counted honestly for every arm:
sandbox CPU-seconds of every real execution, world-model seconds of every prediction, and the
policy-update seconds.

Arms:
    real             GRPO on real execution only
    wmrl             MixedRewardWrapper (static world model, MixingConfig: anchor rate 0.1) + inverse-variance weights
    wmrl-no-debias   the same without Online Debiasing (raw world-model scores)
    wmrl-no-denoise  the same with pooled GRPO weights instead of inverse-variance ones
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym

import wmrl_envs  # noqa: F401 - registers the env ids
from agents.evaluate import default_cache, evaluate_policies
from agents.grpo import GRPOTrainer
from agents.template import TemplatePolicy
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.report import format_table
from wmrl_envs.wrappers import MixedRewardWrapper, MixingState

ARMS = ("real", "wmrl", "wmrl-no-debias", "wmrl-no-denoise")


@dataclass(frozen=True)
class Budget:
    """How much training each arm gets; ``scale`` multiplies the number of updates."""

    updates: int = 20
    group_size: int = 4
    groups_per_update: int = 4

    def scaled(self, scale: float) -> Budget:
        if not scale > 0:
            raise ValueError(f"--budget must be a positive number, got {scale}")
        return Budget(max(1, round(self.updates * scale)), self.group_size, self.groups_per_update)


def _task_ids(env: gym.Env) -> list[str]:
    return list(env.unwrapped.task_ids)


def _exec_cpu(cost: dict) -> float:
    return cost["exec_cpu_s"] or cost["exec_s"]


_CURVE_KEYS = ("update", "reward_mean", "real_episodes")


def _train_arm(arm, make_train_env, world_model, budget, seed, workers, log_dir, progress, mixing=None) -> tuple:
    from wmrl_envs.world_models.factory import make_world_model

    if isinstance(world_model, str):
        world_model = make_world_model(world_model)
    envs = [make_train_env() for _ in range(workers)]
    tasks = _task_ids(envs[0])
    weighting = "pooled" if arm == "wmrl-no-denoise" else "energy"
    if arm != "real":
        config = MixingConfig.make(mixing, seed=seed, weighting=weighting, debias=arm != "wmrl-no-debias")
        state = MixingState(config, state_path=None if log_dir is None else log_dir / arm / "mixing.json")
        envs = [MixedRewardWrapper(e, world_model, state=state) for e in envs]
    policy = TemplatePolicy(seed=seed)
    trainer = GRPOTrainer(envs, policy, tasks, budget.group_size, budget.groups_per_update,
                          weighting=weighting, seed=seed, progress=progress,
                          log_dir=None if log_dir is None else log_dir / arm)
    t0 = time.perf_counter()
    history = trainer.train(budget.updates)
    wall = time.perf_counter() - t0
    for e in envs:
        e.close()
    return policy, trainer.totals, history, wall


def compare(
    budget: float = 1.0,
    arms: tuple[str, ...] = ARMS,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path | None = None,
    env_id: str = "WMRL/MLEDojo-v0",
    world_model=None,
    env_kwargs: dict | None = None,
    progress: bool = True,
    mixing: MixingConfig | None = None,
) -> dict:
    """Train every arm, evaluate each on held-out tasks and DSBench, and return the results dict.

    ``mixing``: the mixed arms' ``MixingConfig`` (anchor rate, selection, ...); each arm sets its
    own ``seed``, ``weighting`` and ``debias`` on it.

    ``world_model``: a world model, or a spec for ``make_world_model`` (each arm then builds its
    own, so a model that learns from anchors never carries one arm's pairs into another).
    """
    unknown = [a for a in arms if a not in ARMS]
    if unknown or "real" not in arms:
        raise ValueError(f"arms must include 'real' and come from {ARMS}; got {list(arms)}")
    b = Budget().scaled(budget)
    workers = workers or 2
    out = None if out is None else Path(out)
    kw = dict(env_kwargs or {})
    world_model = world_model or "static"
    if isinstance(world_model, str):
        from wmrl_envs.world_models.factory import check_spec

        check_spec(world_model)

    def make(env, split):
        return lambda: gym.make(env, split=split, **kw)

    results = {"budget": {"scale": budget, **b.__dict__}, "seed": seed, "arms": {}, "untrained": {},
               "mixing": MixingConfig.make(mixing).to_dict()}
    policies = {"untrained": TemplatePolicy(seed=seed)}
    for arm in arms:
        policy, totals, history, wall = _train_arm(arm, make(env_id, "train"), world_model, b, seed,
                                                   workers, out, progress, mixing)
        policies[arm] = policy
        results["arms"][arm] = {
            "real_executions": int(totals["real_episodes"]),
            "exec_cpu_s": _exec_cpu(totals),
            "wm_s": totals["wm_s"],
            "update_s": totals["update_s"],
            "compute_s": _exec_cpu(totals) + totals["wm_s"] + totals["update_s"],
            "train_wall_s": wall,
            "curve": [{k: v for k, v in h.items() if k in _CURVE_KEYS or k.startswith(("monitor/", "mixing/"))}
                      for h in history],
        }
    heldout = evaluate_policies(make(env_id, "heldout"), policies, workers, default_cache(env_id), progress)
    dsbench = evaluate_policies(make("WMRL/DSBench-v0", "all"), policies, workers,
                                default_cache("WMRL/DSBench-v0"), progress)
    for name in policies:
        row = results["untrained"] if name == "untrained" else results["arms"][name]
        row.update(
            heldout_percentile=heldout[name]["expected"],
            heldout_percentile_greedy=heldout[name]["greedy"],
            dsbench_rpg=dsbench[name]["expected"],
            dsbench_rpg_greedy=dsbench[name]["greedy"],
            heldout_per_task=heldout[name]["per_task"],
            dsbench_per_task=dsbench[name]["per_task"],
        )
    results["eval_programs_run"] = heldout["_executions"]["programs_run"] + dsbench["_executions"]["programs_run"]
    real = results["arms"]["real"]["compute_s"]
    for r in results["arms"].values():
        r["compute_ratio"] = real / r["compute_s"] if r["compute_s"] > 0 else None
    if "wmrl" in results["arms"]:
        results["compute_ratio"] = results["arms"]["wmrl"]["compute_ratio"]
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(results, indent=2))
        plot(results, out / "compare.png")
    return results


COLUMNS = ["arm", "heldout_percentile", "heldout_percentile_greedy", "dsbench_rpg", "dsbench_rpg_greedy",
           "real_executions", "exec_cpu_s", "wm_s", "update_s", "compute_s", "compute_ratio"]


def table(results: dict) -> str:
    rows = [{"arm": "untrained", **results["untrained"]}]  # no training: no compute columns
    rows += [{"arm": a, **r} for a, r in results["arms"].items()]
    return format_table(rows, COLUMNS)


def plot(results: dict, path: Path) -> None:
    """Held-out score against training compute, one point per arm, and the training curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (arm, r) in enumerate(results["arms"].items()):
        c = colors[i % len(colors)]
        ax.scatter(r["compute_s"], r["heldout_percentile"], s=60, color=c, marker="o", label=arm)
        ax.scatter(r["compute_s"], r["dsbench_rpg"], s=60, color=c, marker="^")
        ax2.plot([h["update"] for h in r["curve"]], [h["reward_mean"] for h in r["curve"]], color=c, label=arm)
    u = results["untrained"]
    ax.axhline(u["heldout_percentile"], color="grey", ls=":", label="untrained")
    ax.axhline(u["dsbench_rpg"], color="grey", ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("training compute (CPU-seconds, log scale)")
    ax.set_ylabel("● MLE-Dojo held-out percentile   ▲ DSBench RPG")
    ax.set_title("held-out score against training compute")
    ax.legend(fontsize=8)
    ax2.set_xlabel("policy update")
    ax2.set_ylabel("mean training reward (real or debiased)")
    ax2.set_title("training curves")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
