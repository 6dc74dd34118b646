"""``wmrl compare``: the same agent trained with real-execution GRPO and with WMRL, over seeds.

One comparison for every env family: this module holds the arms, the training loop with its
checkpoints and resume, the held-out curves, the statistics over seeds, the table and the plot; an
adapter per family says how to build its training envs and policies and how to score a policy for
real (:class:`EnvFamily`): ``wmrl_agents/compare_text.py`` for the text envs (programs in the sandbox),
``wmrl_agents/compare_libero.py`` for ``WMRL/LIBERO-Long-v0`` (the robot in MuJoCo). A third family
is one more adapter.

For every seed, every arm starts from the same policy and runs the same number of GRPO updates on
the training tasks. Every ``eval_every`` updates the policy is scored for real on held-out tasks (or
init states), which gives a curve of held-out score against cumulative training compute.

Compute is counted the same way for every arm: sandbox CPU-seconds of every real execution,
simulator seconds of every simulated step, world-model seconds of every prediction, and
policy-update seconds.

Arms:
    real             GRPO on real outcomes only
    wmrl             MixedRewardWrapper (world model, MixingConfig) + inverse-variance weights
    wmrl-no-debias   the same without Online Debiasing (raw world-model scores)
    wmrl-no-denoise  the same with pooled GRPO weights instead of inverse-variance ones
    wmrl-guard       (only when asked) full WMRL with the reward-hacking guard: the anchor rate
                     follows the exploitation monitor, overrated score bands are shrunk

Across seeds, tables give the mean and 95% interval, and each arm's difference to ``real`` as a
paired interval (``wmrl_agents/stats.py``). A run writes everything under ``out`` as it goes and resumes
from there: finished arms are read back, an unfinished one continues from its trainer checkpoint.

A mixed arm has one mixer, built here from the arm's ``MixingConfig`` (:func:`arm_mixer`, kept in
``seed<N>/<arm>/mixing.json``): the family's wrappers feed it and the arm's ``GRPOTrainer`` is
handed it, so the weights applied and reported are its config's.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import socket
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from wmrl_agents.compare_text import AGENTS, LLM_NEEDS_MODEL, make_policy, program_limits
from wmrl_agents.grpo import GRPOTrainer
from wmrl_agents.stats import first_reach, interval, paired
from wmrl_envs.jsonl import append_record, read_records
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.mixing.config import EPS, NORMALIZE, advantage_setting
from wmrl_envs.sandbox.warm import zygote_cpu
from wmrl_envs.world_models.recorded import source_hash

__all__ = ["AGENTS", "ARMS", "GUARD", "LLM_NEEDS_MODEL", "Budget", "EnvFamily", "check_arms", "compare", "make_policy",
           "per_task_table", "plot", "program_limits", "summarize", "table"]

ARMS = ("real", "wmrl", "wmrl-no-debias", "wmrl-no-denoise")
MATCH_CAP = 10  # with match_compute, a mixed arm runs at most this many times the budget's updates
GUARD = "wmrl-guard"  # optional arm: adaptive anchoring + shrinkage of overrated bands (#15)


class EnvFamily(Protocol):
    """What ``wmrl compare`` needs of an env family (one adapter each: ``TextWorld``, ``LiberoWorld``).
    (``World`` until 0.3: an env family, not a world model.)"""

    def check(self) -> None:
        """Raise ``ValueError`` on a bad agent, world model or task, before anything runs."""

    def policy(self, seed: int) -> Any:
        """A fresh policy (same seed: same initial parameters) for ``GRPOTrainer``."""

    def train_envs(self, mixer: MixingState | None) -> list[gym.Env]:
        """Training env copies: plain for the real arm (``mixer`` None), else ``MixedRewardWrapper``
        copies built with ``mixer``, the arm's one mixer, which its trainer applies too. Their
        ``unwrapped.task_ids`` are the training tasks."""

    def train_tasks(self, envs: list[gym.Env]) -> list:
        """The task ids GRPO groups are drawn from."""

    def evaluate(self, policy: Any, seed: int, samples: int) -> dict:
        """``{"expected", "greedy", "per_task"}``: the policy's held-out score, measured for real."""

    def final_extras(self, policy: Any, seed: int, samples: int) -> dict:
        """Further scores of the final policy (e.g. DSBench), merged into the arm's result."""

    def describe(self) -> dict:
        """The adapter's settings and counters, for ``results["config"]``."""


@dataclass(frozen=True)
class Budget:
    """How much training each arm gets; ``scale`` multiplies the number of updates.

    Args:
        updates: GRPO updates per arm and seed.
        group_size: programs per group (same task).
        groups_per_update: groups per update.
        eval_every: updates between held-out evaluations (the curve's points; the last update is
            always one).
        eval_samples: sampled programs per held-out task for a policy that cannot be enumerated.
        match_compute: R: the mixed arms run, with the same batch shape, until they have spent
            1/R of the real arm's compute on the same seed (at most :data:`MATCH_CAP` × ``updates``
            updates), and the real arm is scored again at the compute each mixed arm spent in
            ``updates`` updates (its policy after every update is kept for that). None: every arm
            runs ``updates`` updates.
    """

    updates: int = 20
    group_size: int = 4
    groups_per_update: int = 4
    eval_every: int = 10
    eval_samples: int = 2
    match_compute: float | None = None

    def __post_init__(self) -> None:
        if self.updates < 1 or self.group_size < 2 or self.groups_per_update < 1:
            raise ValueError(f"a budget that cannot train: {self}")
        if self.eval_every < 1 or self.eval_samples < 0:
            raise ValueError(f"eval_every must be >= 1 and eval_samples >= 0, got {self.eval_every}, {self.eval_samples}")
        if self.match_compute is not None and not self.match_compute >= 1:
            raise ValueError(f"--match-compute R gives the mixed arms 1/R of real's compute: R must be >= 1, "
                             f"got {self.match_compute}")

    def scaled(self, scale: float) -> Budget:
        if not scale > 0:
            raise ValueError(f"--budget must be a positive number, got {scale}")
        return replace(self, updates=max(1, round(self.updates * scale)))

    def evaluates_at(self, update: int) -> bool:
        """Whether the held-out curve has a point after ``update`` updates (an arm's last update is
        always one)."""
        return update % self.eval_every == 0 or update == self.updates


@dataclass
class Study:
    """Everything one comparison needs, shared by its seeds and arms."""

    family: EnvFamily
    budget: Budget
    mixing: MixingConfig | None
    out: Path | None
    progress: bool
    normalize: str = NORMALIZE  # every arm's GRPO advantages (GRPOTrainer)
    eps: float = EPS
    untrained: dict = field(default_factory=dict)  # seed -> the held-out evaluation at update 0

    def evaluate(self, policy: Any, seed: int, update: int) -> dict:
        """The held-out evaluation of ``policy`` after ``update`` updates. Every arm of a seed
        starts from the same policy, so update 0 is evaluated once per seed (kept in memory and
        in ``out/seed<N>/untrained.json``) and shared: for an LLM that is one evaluation instead
        of one per arm."""
        if update != 0:
            return self.family.evaluate(policy, seed, self.budget.eval_samples)
        path = None if self.out is None else self.out / f"seed{seed}" / "untrained.json"
        if seed not in self.untrained and path is not None and path.exists():
            self.untrained[seed] = json.loads(path.read_text())
        if seed not in self.untrained:
            self.untrained[seed] = self.family.evaluate(policy, seed, self.budget.eval_samples)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                _write_json(path, self.untrained[seed])
        return self.untrained[seed]


def _cost(totals: dict) -> dict:
    """An arm's compute: sandbox CPU-seconds (wall where unmeasured) + simulator seconds +
    world-model seconds + policy-update seconds; and its simulator steps (the same work on any
    machine: simulator seconds are wall time, which other jobs stretch)."""
    exec_cpu = totals["exec_cpu_s"] or totals["exec_s"]
    sim = totals.get("sim_s", 0.0)
    return {"real_executions": int(totals["real_episodes"]), "exec_cpu_s": exec_cpu, "sim_s": sim,
            "sim_steps": int(totals.get("sim_steps", 0)),
            "wm_s": totals["wm_s"], "update_s": totals["update_s"],
            "compute_s": exec_cpu + sim + totals["wm_s"] + totals["update_s"]}


def wm_fidelity(pairs: Sequence[tuple[float, float, bool]]) -> dict:
    """AUC of the world-model score for "the run succeeded", and its Spearman with the real reward,
    on the anchor pairs an arm saw (the reward WMRL trained on, measured on its own samples)."""
    from scipy.stats import spearmanr
    from sklearn.metrics import roc_auc_score

    if len(pairs) < 3:
        return {"pairs": len(pairs), "auc_ok": None, "spearman": None}
    s, y, ok = (np.asarray(v, dtype=np.float64) for v in zip(*pairs))
    auc = float(roc_auc_score(ok, s)) if 0 < ok.sum() < len(ok) else None
    rho = spearmanr(s, y).statistic if np.ptp(s) > 0 and np.ptp(y) > 0 else None
    return {"pairs": len(pairs), "auc_ok": auc, "spearman": None if rho is None else float(rho)}


def arm_config(mixing: MixingConfig | None, arm: str, seed: int) -> MixingConfig | None:
    """The arm's ``MixingConfig`` (None for ``real``): its ``weighting`` is the one the mixer applies."""
    if arm == "real":
        return None
    weighting = "pooled" if arm == "wmrl-no-denoise" else "inverse-variance"
    guard = {"adaptive": True, "shrink_overrated": True} if arm == GUARD else {}
    return MixingConfig.make(mixing, seed=seed, weighting=weighting, debias=arm != "wmrl-no-debias", **guard)




def _by_update(records: list[dict]) -> list[dict]:
    """One record per update, the last written (a crash can log an update twice)."""
    return sorted({r["update"]: r for r in records}.values(), key=lambda r: r["update"])


def arm_mixer(study: Study, arm: str, seed: int, log_dir: Path | None) -> MixingState | None:
    """The arm's one mixer (None for ``real``), kept in ``log_dir/mixing.json``: the env family's
    wrappers feed it and the trainer is handed it, so the weights applied are its config's."""
    config = arm_config(study.mixing, arm, seed)
    if config is None:
        return None
    return MixingState(config, state_path=None if log_dir is None else log_dir / "mixing.json")


def _append_jsonl(path: Path | None, record: dict) -> None:
    if path is not None:
        append_record(path, record)


def _wm_memo(envs: list[gym.Env]) -> dict | None:
    """The world model's memo hits and misses since this process started the arm (None without one)."""
    wm = getattr(envs[0], "world_model", None)
    return {"hits": wm.hits, "misses": wm.misses} if wm is not None and hasattr(wm, "hits") else None


def run_arm(study: Study, arm: str, seed: int) -> dict:
    """Train one arm for one seed with held-out evaluations at the checkpoints; resumes from ``out``:
    a finished arm is read back, an unfinished one continues from its trainer checkpoint, and the
    curve points written before a restart are not evaluated again."""
    log_dir = None if study.out is None else study.out / f"seed{seed}" / arm
    if log_dir is not None and (log_dir / "result.json").exists():
        return _finished(log_dir)
    if log_dir is None:
        return _run_arm(study, arm, seed, None)
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / ".lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise ValueError(f"{log_dir} is being trained by another process ({lock.read().strip() or 'unknown'}): "
                             "give each process its own seeds (--seed-list)") from None
        lock.truncate(0)
        lock.write(f"pid {os.getpid()} on {socket.gethostname()}")
        lock.flush()
        if (log_dir / "result.json").exists():  # finished between the look above and the lock
            return _finished(log_dir)
        return _run_arm(study, arm, seed, log_dir)


def _run_arm(study: Study, arm: str, seed: int, log_dir: Path | None) -> dict:
    """:func:`run_arm` of an unfinished arm, its folder (if any) locked by this process."""
    mixer = arm_mixer(study, arm, seed, log_dir)
    envs = study.family.train_envs(mixer)
    policy = study.family.policy(seed)
    trainer = GRPOTrainer(envs, policy, study.family.train_tasks(envs), study.budget.group_size,
                          study.budget.groups_per_update, seed=seed, progress=study.progress, log_dir=log_dir,
                          mixer=mixer, normalize=study.normalize, eps=study.eps)
    t0 = time.perf_counter()
    try:
        curve, ev, history = _train(study, trainer, seed, log_dir)
    finally:
        for e in envs:
            e.close()
    if ev is None or curve[-1]["update"] != trainer.update_idx:  # the final policy was not evaluated just now
        ev = study.evaluate(policy, seed, trainer.update_idx)
    if log_dir is not None:  # every update's, those before a restart included (not an undone one's)
        history = [h for h in read_records(log_dir / "metrics.jsonl") if h["update"] < trainer.update_idx]
    result = {"code": code_version(), **_cost(trainer.totals), "train_wall_s": time.perf_counter() - t0,
              **_arm_scores(ev, curve, history),
              "wm_fidelity": None if mixer is None else {**wm_fidelity(trainer.anchor_pairs), **_within(history)},
              "wm_memo": _wm_memo(envs),
              **study.family.final_extras(policy, seed, study.budget.eval_samples)}
    if log_dir is not None:
        _write_json(log_dir / "result.json", result)
    return result


def _within(history: list[dict]) -> dict:
    """The world model's within-group Spearman over a run's anchor groups (each update's mean,
    weighted by its groups; :func:`~wmrl_agents.grpo.within_group_fidelity`)."""
    rows = [(h["wm/within_group_spearman"], h["wm/within_groups"]) for h in _by_update(history)
            if h.get("wm/within_groups")]
    n = sum(k for _, k in rows)
    return {"within_groups": n, "within_spearman": sum(r * k for r, k in rows) / n if n else None}


def _finished(log_dir: Path) -> dict:
    """A finished arm's result, read back; one another code trained is refused."""
    result = json.loads((log_dir / "result.json").read_text())
    if result.get("code", code_version()) != code_version():
        raise ValueError(f"{log_dir} was trained by code {result['code']} and this is {code_version()}: one "
                         "results.json holds one code's runs; run these seeds in a new --out (or with that code)")
    if "sim_steps" not in result:  # written before results carried it: the updates' log has it
        logged = _by_update(read_records(log_dir / "metrics.jsonl"))
        result["sim_steps"] = int(sum(r.get("cost/sim_steps", 0) for r in logged))
    return result


def _train(study: Study, trainer: GRPOTrainer, seed: int, log_dir: Path | None) -> tuple[list[dict], dict | None, list]:
    """The training loop of an arm: its held-out curve, the last evaluation this process made (None
    if none) and the updates' metrics. ``budget.updates`` updates; with ``match_compute`` a mixed arm
    trains until its compute would pass real's / R, and the update that passes it is undone: the
    arm's policy and compute are those after the update before (the arm was given at most 1/R of
    real's compute; an update's cost is known only once it ran). With ``match_compute`` every arm
    keeps its policy, costs and anchor-pair count after every update (``snapshots/u<N>.json``):
    the undoing reads them, and so does :func:`matched_real` for the real arm."""
    b, mixed = study.budget, trainer.mixer is not None
    target = _real_compute(study, seed) / b.match_compute if mixed and b.match_compute is not None else None
    snapshots = None if log_dir is None or b.match_compute is None else log_dir / "snapshots"
    curve_path = None if log_dir is None else log_dir / "curve.jsonl"
    curve = [] if curve_path is None else read_records(curve_path)
    history: list[dict] = []
    ev = None
    trainer.maybe_resume()
    if snapshots is not None and trainer.update_idx == 0:
        _snapshot(snapshots, trainer)
    while True:
        over = target is not None and _cost(trainer.totals)["compute_s"] > target
        if over and snapshots is not None:  # the update that passed the budget: undone
            _restore(snapshots / f"u{trainer.update_idx - 1}.json", trainer)
        u = trainer.update_idx
        done = over or u >= (b.updates if target is None else MATCH_CAP * b.updates)
        if (b.evaluates_at(u) or done) and not any(p["update"] == u for p in curve):
            ev = study.evaluate(trainer.policy, seed, u)
            point = {"update": u, **_cost(trainer.totals), "heldout": ev["expected"], "heldout_greedy": ev["greedy"]}
            curve.append(point)
            _append_jsonl(curve_path, point)
        if done:
            return curve, ev, [h for h in history if h["update"] < u]
        history += trainer.train(u + 1, resume=False)
        if snapshots is not None:
            _snapshot(snapshots, trainer)


def _snapshot(folder: Path, trainer: GRPOTrainer) -> None:
    """``folder/u<N>.json``: the policy, costs and anchor-pair count after the trainer's N updates."""
    folder.mkdir(exist_ok=True)
    _write_json(folder / f"u{trainer.update_idx}.json", {
        "update": trainer.update_idx, **_cost(trainer.totals), "totals": dict(trainer.totals),
        "anchor_pairs": len(trainer.anchor_pairs), "policy": trainer.policy.state_dict()})


def _restore(path: Path, trainer: GRPOTrainer) -> None:
    """Put the trainer back to a snapshot of :func:`_snapshot` (its policy, update count, costs and
    anchor pairs; the mixer, which no later update consults, is left as it is)."""
    snap = json.loads(path.read_text())
    trainer.policy.load_state_dict(snap["policy"])
    trainer.update_idx, trainer.totals = int(snap["update"]), dict(snap["totals"])
    del trainer.anchor_pairs[int(snap["anchor_pairs"]):]


@functools.cache
def code_version() -> str:
    """A hash of wmrl's source (``wmrl_envs`` and ``wmrl_agents``): what every arm's result records,
    so that runs of different code never merge into one table."""
    return source_hash("wmrl_envs", "wmrl_agents")


code_version()  # hashed as the process starts: the code it imported, not files edited while it runs


def _write_json(path: Path, data: Any, indent: int | None = None) -> None:
    """Write ``path`` atomically: a crash (or another process reading) sees the old file or the new."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=indent))
    os.replace(tmp, path)


def _real_compute(study: Study, seed: int) -> float:
    """The real arm's total compute on ``seed`` (it runs first): what ``match_compute`` divides."""
    return float(run_arm(study, "real", seed)["compute_s"])


def matched_real(study: Study, seed: int, compute_s: float) -> dict:
    """The real arm scored at ``compute_s``: its policy after the first update whose compute reaches
    it (the last, if none does), from the snapshots the real arm kept; evaluated once and kept in
    ``seed<N>/real/matched.jsonl``."""
    if study.out is None:
        raise ValueError("match_compute keeps the real arm's policies in the run folder: give out=")
    arm_dir = study.out / f"seed{seed}" / "real"
    snaps = sorted((json.loads(p.read_text()) for p in (arm_dir / "snapshots").glob("u*.json")),
                   key=lambda r: r["update"])
    if not snaps:
        raise ValueError(f"{arm_dir} holds no policy snapshots: it ran without match_compute; rerun its real arm "
                         "(delete its result.json) or give a new --out")
    snap = next((r for r in snaps if r["compute_s"] >= compute_s), snaps[-1])
    done = {r["update"]: r for r in read_records(arm_dir / "matched.jsonl")}
    if snap["update"] not in done:
        policy = study.family.policy(seed)
        policy.load_state_dict(snap["policy"])
        ev = study.evaluate(policy, seed, snap["update"])
        done[snap["update"]] = {"update": snap["update"], "compute_s": snap["compute_s"], "heldout": ev["expected"],
                                "heldout_greedy": ev["greedy"]}
        _append_jsonl(arm_dir / "matched.jsonl", done[snap["update"]])
    return done[snap["update"]]


def equal_compute(study: Study, seed: int, result: dict) -> dict:
    """A mixed arm's score after the budget's updates (or its last, if it stopped earlier) and the
    real arm's at the compute it had spent then: both sides of "at equal compute"."""
    at = [p for p in result["curve"] if p["update"] <= study.budget.updates][-1]
    real = matched_real(study, seed, at["compute_s"])
    return {"update": at["update"], "compute_s": at["compute_s"], "heldout": at["heldout"],
            "real_update": real["update"], "real_compute_s": real["compute_s"], "real_heldout": real["heldout"]}


def _arm_scores(final: dict, curve: list[dict], history: list[dict]) -> dict:
    """The final held-out scores, the held-out curve and the training curve (one row per update) of an arm."""
    train_curve = [{k: v for k, v in h.items() if k in ("update", "reward_mean", "real_episodes")
                    or k.startswith(("monitor/", "mixing/", "wm/within"))} for h in _by_update(history)]
    return {"heldout": final["expected"], "heldout_greedy": final["greedy"], "heldout_per_task": final["per_task"],
            "curve": curve, "train_curve": train_curve}


def check_arms(arms: Sequence[str], seeds: Sequence[int]) -> None:
    """A ``ValueError`` unless ``arms`` are known and include ``real``, and ``seeds`` are given."""
    unknown = [a for a in arms if a not in (*ARMS, GUARD)]
    if unknown or "real" not in arms:
        raise ValueError(f"arms must include 'real' and come from {(*ARMS, GUARD)}; got {list(arms)}")
    if not seeds:
        raise ValueError("--seeds must be at least 1")


def compare(
    family: EnvFamily,
    budget: float | Budget = 1.0,
    arms: tuple[str, ...] = ARMS,
    seeds: int | Sequence[int] = 1,
    mixing: MixingConfig | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    normalize: str = NORMALIZE,
    eps: float = EPS,
) -> dict:
    """Train every arm over seeds, evaluate for real on held-out tasks, and return the results.

    ``family``: the env family's adapter (:class:`EnvFamily`: ``TextWorld`` for a text env,
    ``LiberoWorld``), which holds every setting of its envs, agent and world model; the command
    line's settings are :class:`~wmrl_agents.compare_config.CompareConfig`, whose ``family()``
    builds it (``run_compare(config)``: the command's one entry). ``seeds``: a count (seeds
    0..n-1) or the seeds themselves. ``mixing``: the mixed arms' ``MixingConfig``; each arm sets
    its own ``seed``, ``weighting`` and ``debias`` on it. ``normalize``, ``eps``: every arm's GRPO
    advantages (one GRPO for every arm: :func:`~wmrl_envs.mixing.config.advantage_setting`).
    """
    seeds = list(range(seeds)) if isinstance(seeds, int) else list(seeds)
    check_arms(arms, seeds)
    b = budget if isinstance(budget, Budget) else Budget().scaled(budget)
    if b.match_compute is not None and out is None:
        raise ValueError("match_compute keeps the real arm's policy after every update in the run folder: give out=")
    family.check()
    advantage = advantage_setting(normalize, eps)  # raises on a bad value, before anything runs
    study = Study(family, b, mixing, None if out is None else Path(out), progress, **advantage)
    t0 = time.perf_counter()
    runs = {seed: {arm: run_arm(study, arm, seed) for arm in arms} for seed in seeds}
    if b.match_compute is not None:
        for seed in seeds:
            for arm in (a for a in arms if a != "real"):
                runs[seed][arm] = {**runs[seed][arm], "equal_compute": equal_compute(study, seed, runs[seed][arm])}
    results = summarize(runs, arms)
    described = family.describe()
    results.update(config={"time_limit": None, **{k: v for k, v in described.items() if k != "outcome_table"},
                           "seeds": seeds, "budget": asdict(b), "mixing": MixingConfig.make(mixing).to_dict(),
                           **advantage},
                   wall_s=time.perf_counter() - t0, warm_zygotes=zygote_cpu())
    if "outcome_table" in described:
        results["outcome_table"] = described["outcome_table"]
    if study.out is not None:
        study.out.mkdir(parents=True, exist_ok=True)
        _write_json(study.out / "results.json", results, indent=2)
        tmp = study.out / f".compare.{os.getpid()}.png"
        plot(results, tmp)
        os.replace(tmp, study.out / "compare.png")
    return results


METRICS = ("heldout", "heldout_greedy", "dsbench", "dsbench_greedy", "real_executions", "compute_s", "sim_steps")


def _mean_curve(per_seed: list[list[dict]]) -> dict:
    """Mean compute and held-out score per checkpoint over seeds, with the score's interval."""
    updates = sorted({p["update"] for c in per_seed for p in c})
    points = []
    for u in updates:
        at = [p for c in per_seed for p in c if p["update"] == u]
        iv = interval([p["heldout"] for p in at])
        points.append({"update": u, "compute_s": float(np.mean([p["compute_s"] for p in at])), **iv})
    return {"points": points}


def _ratios(rows: list[Any], real: list[Any]) -> dict[str, Any]:
    """Real's mean compute over the arm's (None, with ``ratio_note`` saying why, where either ran no
    program), and the same for simulator steps (None where nothing was simulated)."""
    mean_compute = float(np.mean([r["compute_s"] for r in rows]))
    real_compute = float(np.mean([r["compute_s"] for r in real]))
    note = ("ran no program" if not any(r["real_executions"] for r in rows)
            else None if any(r["real_executions"] for r in real) else "real ran no program")
    steps, real_steps = (float(np.mean([r.get("sim_steps", 0) for r in x])) for x in (rows, real))
    return {"ratio_note": note,
            "compute_ratio": real_compute / mean_compute if mean_compute > 0 and note is None else None,
            "steps_ratio": real_steps / steps if steps > 0 and real_steps > 0 else None}


def _arm_summary(rows: list[Any], real: list[Any], is_real: bool) -> dict[str, Any]:
    """One arm's entry of :func:`summarize` from its runs (``rows``) and ``real``'s, seed by seed."""
    out: dict[str, Any] = {m: interval([r.get(m) for r in rows]) for m in METRICS if any(m in r for r in rows)}
    out.update(_ratios(rows, real))
    if not is_real:
        out["vs_real"] = {m: paired([r[m] for r in rows], [r[m] for r in real])
                          for m in ("heldout", "heldout_greedy", "dsbench") if m in rows[0]}
        if all("equal_compute" in r for r in rows):
            eq = [r["equal_compute"] for r in rows]
            out["equal_compute"] = {"arm": interval([e["heldout"] for e in eq]),
                                    "real": interval([e["real_heldout"] for e in eq]),
                                    "delta": paired([e["heldout"] for e in eq], [e["real_heldout"] for e in eq]),
                                    "compute_s": interval([e["compute_s"] for e in eq]),
                                    "update": interval([e["update"] for e in eq])}
        fid = [r["wm_fidelity"] for r in rows if r.get("wm_fidelity")]
        out["wm_auc_ok"] = interval([f["auc_ok"] for f in fid])
        out["wm_spearman"] = interval([f["spearman"] for f in fid])
        out["wm_within_spearman"] = interval([f.get("within_spearman") for f in fid])
    out["curve"] = _mean_curve([r["curve"] for r in rows])
    return out


def summarize(runs: dict, arms: Sequence[str]) -> dict:
    """Per-arm means and intervals over seeds, paired differences to ``real``, the compute ratio
    (real's mean compute over the arm's: a ratio of means, stable when one seed draws few anchors)
    and, where the env simulates, the same ratio of simulator steps (``steps_ratio``),
    mean curves, and the compute at which each arm's mean curve first reaches real's final score.

    The ratio compares execution against prediction, so it needs programs that ran: where the arm
    (over all seeds) or ``real`` ran none (every program refused unrun, say), ``compute_ratio`` is
    None and ``ratio_note`` says which ("ran no program", "real ran no program"; else None)."""
    seeds = list(runs)
    real = [runs[s]["real"] for s in seeds]
    summary = {arm: _arm_summary([runs[s][arm] for s in seeds], real, arm == "real") for arm in arms}
    untrained = {"heldout": interval([runs[s]["real"]["curve"][0]["heldout"] for s in seeds])}
    target = summary["real"]["heldout"]["mean"]
    for arm in arms:
        pts = summary[arm]["curve"]["points"]
        summary[arm]["compute_to_reach_real"] = first_reach([p["compute_s"] for p in pts], [p["mean"] for p in pts], target)
    return {"runs": {str(s): runs[s] for s in seeds}, "summary": summary, "untrained": untrained}


def table(results: dict) -> str:
    """One row per arm: mean [95% interval] over seeds, and the paired difference to ``real``."""
    from wmrl_agents.stats import fmt
    from wmrl_envs.report import format_table

    rows = [{"arm": "untrained", "heldout": fmt(results["untrained"]["heldout"])}]
    for arm, s in results["summary"].items():
        vs = s.get("vs_real", {})
        reach = s.get("compute_to_reach_real")
        rows.append({
            "arm": arm,
            "heldout": fmt(s["heldout"]),
            "Δheldout vs real": fmt(vs["heldout"]) if "heldout" in vs else "",
            "greedy": fmt(s["heldout_greedy"]),
            "dsbench": fmt(s["dsbench"]) if "dsbench" in s else "-",
            "real_exec": fmt(s["real_executions"], 0),
            "compute_s": fmt(s["compute_s"], 0),
            "ratio": s.get("ratio_note") or ("-" if s["compute_ratio"] is None else f"{s['compute_ratio']:.2f}x"),
            "sim_steps": fmt(s["sim_steps"], 0) if "sim_steps" in s else "-",
            "steps ratio": "-" if s.get("steps_ratio") is None else f"{s['steps_ratio']:.2f}x",
            "reach_real_s": "-" if reach is None else f"{reach:.0f}",
            "Δ at equal compute": fmt(s["equal_compute"]["delta"]) if "equal_compute" in s else "",
            "wm_auc": fmt(s["wm_auc_ok"], 2) if "wm_auc_ok" in s else "",
            "wm_rho": fmt(s["wm_spearman"], 2) if "wm_spearman" in s else "",
            "wm_rho in groups": fmt(s["wm_within_spearman"], 2) if "wm_within_spearman" in s else "",
        })
    summaries = results["summary"].values()
    hidden = ({"dsbench"} if not any("dsbench" in s for s in summaries) else set()) | (
        {"sim_steps", "steps ratio"} if not any(s.get("steps_ratio") for s in summaries) else set()) | (
        {"Δ at equal compute"} if not any("equal_compute" in s for s in summaries) else set())
    columns = [c for c in rows[-1] if c not in hidden]
    return format_table(rows, columns)


def per_task_table(results: dict) -> str:
    """Held-out score per task (rows) and arm (columns): mean over seeds [95% interval]."""
    from wmrl_agents.stats import fmt
    from wmrl_envs.report import format_table

    runs = list(results["runs"].values())
    arms = list(results["summary"])
    tasks = list(runs[0][arms[0]]["heldout_per_task"])
    rows = [{"task": t, **{arm: fmt(interval([r[arm]["heldout_per_task"][t]["expected"] for r in runs]))
                           for arm in arms}} for t in tasks]
    return format_table(rows, ["task", *arms])


def plot(results: dict, path: Path) -> None:
    """Held-out score against cumulative training compute per arm (the mean over seeds at each
    evaluated update, with its 95% interval as an error bar: measured points only, nothing drawn
    between them; with ``match_compute``, hollow markers: the real arm scored at each mixed arm's
    compute after the budget's updates), the mean training reward per update, and the world
    model's Spearman within the mixed arms' anchor groups per update."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2, ax3) = plt.subplots(1, 3, figsize=(18, 4.4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    runs = results["runs"]
    for i, (arm, s) in enumerate(results["summary"].items()):
        c = colors[i % len(colors)]
        pts = s["curve"]["points"]
        x = [max(p["compute_s"], 1e-3) for p in pts]
        y = np.array([p["mean"] for p in pts])
        # a point some seeds never reached (a mixed arm's updates past another seed's stop) has one value: no bar
        spread = [y - [y_ if p["lo"] is None else p["lo"] for y_, p in zip(y, pts)],
                  [y_ if p["hi"] is None else p["hi"] for y_, p in zip(y, pts)] - y]
        ax.errorbar(x, y, yerr=spread, fmt="o", color=c, capsize=2, label=arm)
        eq = s.get("equal_compute")
        if eq is not None:
            real_x = float(np.mean([r[arm]["equal_compute"]["real_compute_s"] for r in runs.values()]))
            ax.plot([real_x], [eq["real"]["mean"]], "o", mfc="none", color=c, ms=9,
                    label=f"real at {arm}'s compute after {eq['update']['mean']:.0f} updates")
        curves = [r[arm]["train_curve"] for r in runs.values() if r[arm].get("train_curve")]
        if curves:
            n = min(len(cv) for cv in curves)
            ax2.plot(range(n), np.mean([[h["reward_mean"] for h in cv[:n]] for cv in curves], axis=0), color=c, label=arm)
    real = results["summary"]["real"]["heldout"]["mean"]
    ax.axhline(real, color="grey", ls=":", label="real GRPO, final")
    ax.axhline(results["untrained"]["heldout"]["mean"], color="black", ls="--", lw=0.8, label="untrained")
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlim(left=0)
    ax.set_xlabel("cumulative training compute (s: sandbox CPU, simulator, world model, updates)")
    ax.set_ylabel("held-out score (real execution)")
    n = len(runs)
    ax.set_title(f"held-out score against compute ({n} seed{'s' if n > 1 else ''}; bars: 95% interval)")
    ax.legend(fontsize=8)
    ax2.set_xlabel("policy update")
    ax2.set_ylabel("mean training reward (real or debiased)")
    ax2.set_title("training reward (mean over seeds)")
    ax2.legend(fontsize=8)
    _plot_within(ax3, results, colors)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_within(ax: Any, results: dict, colors: list[str]) -> None:
    """Per update, the world model's Spearman within the anchor groups of each mixed arm (the mean
    over the seeds that had anchor groups whose scores and rewards varied; one point per update)."""
    for i, arm in enumerate(results["summary"]):
        by_update: dict[int, list[float]] = {}
        for r in results["runs"].values():
            for h in r[arm].get("train_curve") or []:
                if h.get("wm/within_group_spearman") is not None:
                    by_update.setdefault(h["update"], []).append(h["wm/within_group_spearman"])
        if by_update:
            u = sorted(by_update)
            ax.plot(u, [np.mean(by_update[k]) for k in u], "o", color=colors[i % len(colors)], label=arm)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("policy update")
    ax.set_ylabel("Spearman(world model, real) within an anchor group")
    ax.set_title("world-model fidelity where GRPO uses it (anchor groups)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
