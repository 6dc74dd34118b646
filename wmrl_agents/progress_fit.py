"""Train the learned progress model (:mod:`wmrl_envs.world_models.learned_progress`) for
``WMRL/LIBERO-Long-v0``, the Robometer role fitted here.

    python -m wmrl_agents.progress_fit --demos FILE --tasks 2,5,7 --out DIR [--inits 20] [--samples 8 --rank-weight 1]

Training data, from *train* init states only (held-out ones stay for ``benchmarks/progress_fidelity.py``):

- the expert's demonstrations (``--demos``; all successes);
- the SFT policy's own rollouts (the policy ``wmrl compare`` starts every arm from, seed 0): its
  mean action and ``--samples`` sampled episodes from each of ``--inits`` train init states per
  task, run to ``--max-steps``, successes and failures as they come. With ``--samples 8`` an init
  state's episodes are a GRPO group, and ``--rank-weight`` adds the fit's term that orders a
  group's successes above its failures (:mod:`wmrl_envs.world_models.learned_progress`).

Rollouts are kept in ``DIR/rollouts.npz`` (a rerun with other fit settings reuses them); the
checkpoint goes to ``DIR/progress.pt`` (``--world-model learned-progress:DIR``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

VARIANTS = ("greedy", "sampled", "noisy")  # the policy's mean action, its own samples, the mean + arm noise
SETTLE = np.array([0, 0, 0, 0, 0, 0, -1], dtype=np.float32)


def _actor(policy: Any, variant: str, rng: np.random.Generator, noise: float) -> tuple[
        Callable[[Any, dict], np.ndarray], Callable[[np.ndarray], np.ndarray] | None]:
    """How ``variant`` acts, and what it does to the executed action."""
    from wmrl_agents.compare_libero import _greedy
    from wmrl_agents.demos import arm_noise

    if variant == "sampled":
        return (lambda obs, info: policy.sample(obs, info, rng)[0]), None
    if variant in ("greedy", "noisy"):
        return _greedy(policy), arm_noise(noise, rng) if variant == "noisy" else None
    raise ValueError(f"unknown rollout variant {variant!r}; choose from {VARIANTS}")


def episode(env: Any, act: Callable[[Any, dict], np.ndarray], init: int, horizons: Sequence[int] = (), seed: int = 0,
            on_reset: Callable[[], None] | None = None,
            perturb: Callable[[np.ndarray], np.ndarray] | None = None) -> dict:
    """One episode from ``init`` (:func:`wmrl_agents.demos.rollout`) with every state it visited
    (the reset's and each step's, (T + 1, 151)), success, simulator seconds, and the goal atoms at
    each step of ``horizons``."""
    from wmrl_agents.demos import rollout

    run = rollout(env, act, init, seed=seed, on_reset=on_reset, perturb=perturb, horizons=horizons)
    return {"obs": np.concatenate([run["obs"], run["last_obs"][None]]), "success": run["success"],
            "init": int(init), "steps": run["steps"], "sim_s": run["sim_s"], "atoms": run["atoms"]}


def stalled_expert(env: Any, init: int, stop: int, horizons: Sequence[int], seed: int = 0) -> dict:
    """The gaming probe's episode: the scripted expert for ``stop`` steps, then the hand stops and
    opens until the env's step limit: objects moved toward the goal, never finished."""
    from wmrl_agents.expert import ScriptedExpert

    expert = ScriptedExpert(env)
    steps = {"t": 0}

    def act(obs: Any, info: dict) -> np.ndarray:
        steps["t"] += 1
        return np.asarray(expert.act(obs), dtype=np.float32) if steps["t"] <= stop else SETTLE

    return episode(env, act, init, horizons, seed=seed, on_reset=expert.reset)


def policy_rollouts(policy: Any, tasks: Sequence[int], inits: Callable[[int], Sequence[int]],
                    variants: Sequence[str], max_steps: int, horizons: Sequence[int] = (), noise: float = 0.3,
                    seed: int = 0, samples: int = 1, say: Callable[[str], None] | None = print) -> list[dict]:
    """Episodes of ``policy`` from ``inits(task)`` of each task: one per variant (:data:`VARIANTS`),
    and ``samples`` of the policy's own draws (``sampled``): a group of episodes from one init state
    as GRPO draws them, whose outcomes differ only by the draws."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401

    out = []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=int(task), max_steps=max_steps)
        try:
            for init in inits(task):
                for variant, draw in ((v, k) for v in variants for k in range(samples if v == "sampled" else 1)):
                    # the first draw keeps the stream it had before ``samples`` existed (committed rollouts)
                    key = [seed, int(task), int(init), VARIANTS.index(variant)] + ([draw] if draw else [])
                    act, perturb = _actor(policy, variant, np.random.default_rng(key), noise)
                    run = episode(env, act, init, horizons, seed=seed, on_reset=getattr(policy, "reset", None),
                                  perturb=perturb)
                    out.append({**run, "task": int(task), "variant": variant, "draw": draw})
                    if say:
                        say(f"task {task} init {init} {variant}#{draw}: success={run['success']} steps={run['steps']}")
        finally:
            env.close()
    return out


def save_rollouts(episodes: Sequence[dict], path: Path) -> Path:
    """Episodes as one ``.npz``: states concatenated, per-episode fields, atoms as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez_compressed(
            f, obs=np.concatenate([e["obs"] for e in episodes]), length=np.array([len(e["obs"]) for e in episodes]),
            meta=np.array(json.dumps([{k: v for k, v in e.items() if k != "obs"} for e in episodes])))
    return path


def load_rollouts(path: Path) -> list[dict]:
    with np.load(path, allow_pickle=False) as z:
        bounds = np.concatenate([[0], np.cumsum(z["length"])])
        meta = json.loads(str(z["meta"]))
        obs = z["obs"]  # each z["obs"] reads the whole array again: 400 episodes' views once held 20 GB
        return [{**m, "obs": obs[bounds[i] : bounds[i + 1]]} for i, m in enumerate(meta)]


def demo_episodes(demos: Any, tasks: Sequence[int]) -> list[dict]:
    """The demonstrations of ``tasks`` as successful episodes."""
    return [{"obs": demos.obs[demos.episode_start[e] : demos.episode_start[e] + demos.episode_length[e]],
             "task": int(demos.episode_task[e]), "success": True, "variant": "expert"}
            for e in range(demos.episodes) if int(demos.episode_task[e]) in set(tasks)]


def main(argv: Sequence[str] | None = None) -> int:
    from wmrl_agents.compare_libero import LiberoWorld
    from wmrl_agents.demos import Demos
    from wmrl_agents.init_split import init_split
    from wmrl_envs.world_models.learned_progress import LearnedProgress, fit_progress

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--demos", type=Path, required=True, help="expert demonstrations (.npz)")
    p.add_argument("--tasks", default="2,5,7", help="comma-separated libero_10 task indices")
    p.add_argument("--inits", type=int, default=20, help="train init states per task the SFT policy runs from")
    p.add_argument("--variants", default="greedy,sampled", help=f"comma-separated, from {','.join(VARIANTS)}")
    p.add_argument("--samples", type=int, default=1,
                   help="sampled episodes (the policy's own draws) per init state: 8 gives GRPO-sized groups, from "
                        "which the fit learns to rank episodes of one start (--rank-weight)")
    p.add_argument("--max-steps", type=int, default=400, help="episode length of the rollouts")
    p.add_argument("--epochs", type=int, default=30, help="fit epochs")
    p.add_argument("--rank-weight", type=float, default=0.0,
                   help="weight of the within-group ranking term (learned_progress module docstring); needs --samples")
    p.add_argument("--rank-from", type=int, default=50, help="first step at which a group's episodes are ranked")
    p.add_argument("--out", type=Path, required=True, help="checkpoint folder")
    args = p.parse_args(argv)
    tasks = [int(t) for t in args.tasks.split(",")]
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"--variants: unknown {unknown}; choose from {', '.join(VARIANTS)}")
    demos = Demos.load(args.demos)
    cache = args.out / "rollouts.npz"
    if cache.exists():
        rollouts = load_rollouts(cache)
    else:
        policy = LiberoWorld(tasks=tasks, demos=args.demos).policy(0)
        start = time.perf_counter()
        rollouts = policy_rollouts(policy, tasks, lambda t: init_split(t)["train"][: args.inits], variants,
                                   max_steps=args.max_steps, samples=args.samples)
        save_rollouts(rollouts, cache)
        print(f"{len(rollouts)} rollouts in {time.perf_counter() - start:.0f} s -> {cache}")
    episodes = demo_episodes(demos, tasks) + rollouts
    model = LearnedProgress()
    history = fit_progress(model, episodes, epochs=args.epochs, rank_weight=args.rank_weight, rank_from=args.rank_from)
    model.save(args.out)
    wins = sum(e["success"] for e in rollouts)
    print(f"fit on {len(episodes)} episodes ({wins}/{len(rollouts)} rollouts successful), "
          f"loss {history[0]:.4f} -> {history[-1]:.4f}; checkpoint {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
