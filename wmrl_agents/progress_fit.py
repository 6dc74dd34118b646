"""Train the learned progress model (:mod:`wmrl_envs.world_models.learned_progress`) for
``WMRL/LIBERO-Long-v0``, the Robometer role fitted here.

    python -m wmrl_agents.progress_fit --demos FILE --tasks 2,5,7 --out DIR [--inits 20]

Training data, from *train* init states only (held-out ones stay for ``benchmarks/progress_fidelity.py``):

- the expert's demonstrations (``--demos``; all successes);
- the SFT policy's own rollouts (the policy ``wmrl compare`` starts every arm from, seed 0): its
  mean action and sampled episodes from ``--inits`` train init states per task, run to
  ``--max-steps``, successes and failures as they come.

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


def _actor(policy: Any, variant: str, rng: np.random.Generator, noise: float) -> Callable[[Any, dict], np.ndarray]:
    if variant == "sampled":
        return lambda obs, info: policy.sample(obs, info, rng)[0]
    mean = (lambda obs, info: policy.act(obs, policy.task_of(info))) if hasattr(policy, "task_of") else \
        (lambda obs, info: policy.act(obs))
    if variant == "greedy":
        return mean
    if variant == "noisy":
        def noisy(obs: Any, info: dict) -> np.ndarray:
            action = np.array(mean(obs, info), dtype=np.float32)
            action[:6] += rng.normal(0.0, noise, 6)
            return np.clip(action, -1.0, 1.0)
        return noisy
    raise ValueError(f"unknown rollout variant {variant!r}; choose from {VARIANTS}")


def episode(env: Any, act: Callable[[Any, dict], np.ndarray], init: int, horizons: Sequence[int] = (), seed: int = 0,
            on_reset: Callable[[], None] | None = None) -> dict:
    """One episode from ``init``: every state (the reset's and each step's, (T + 1, 151)), success,
    simulator seconds, and the goal atoms at each step of ``horizons`` (at the end for those it
    does not reach; keyed by the step as a string)."""
    obs, info = env.reset(seed=seed, options={"init_state": int(init)})
    if on_reset is not None:
        on_reset()
    states, atoms, sim_s, done, t = [np.asarray(obs, dtype=np.float32)], {}, 0.0, False, 0
    while not done:
        obs, _, terminated, truncated, info = env.step(act(obs, info))
        t += 1
        sim_s += float(info["cost"]["sim_s"])
        states.append(np.asarray(obs, dtype=np.float32))
        done = terminated or truncated
        for h in horizons:
            if str(h) not in atoms and (t == h or done):
                atoms[str(h)] = info["wm_context"]["atoms"]
    return {"obs": np.stack(states), "success": bool(info["success"]), "init": int(init), "steps": t,
            "sim_s": sim_s, "atoms": atoms}


def stalled_expert(env: Any, init: int, stop: int, horizons: Sequence[int], seed: int = 0) -> dict:
    """The gaming probe's episode: the scripted expert for ``stop`` steps, then the hand stops and
    opens until the last of ``horizons``: objects moved toward the goal, never finished."""
    from wmrl_agents.expert import ScriptedExpert

    expert = ScriptedExpert(env)
    steps = {"t": 0}

    def act(obs: Any, info: dict) -> np.ndarray:
        steps["t"] += 1
        return np.asarray(expert.act(obs), dtype=np.float32) if steps["t"] <= stop else SETTLE

    env_limit = env.unwrapped.max_steps
    env.unwrapped.max_steps = max(horizons)
    try:
        return episode(env, act, init, horizons, seed=seed, on_reset=expert.reset)
    finally:
        env.unwrapped.max_steps = env_limit


def policy_rollouts(policy: Any, tasks: Sequence[int], inits: Callable[[int], Sequence[int]],
                    variants: Sequence[str], max_steps: int, horizons: Sequence[int] = (), noise: float = 0.3,
                    seed: int = 0, say: Callable[[str], None] | None = print) -> list[dict]:
    """Episodes of ``policy`` from ``inits(task)`` of each task, one per variant (:data:`VARIANTS`)."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401

    out = []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=int(task), max_steps=max_steps)
        try:
            for init in inits(task):
                for variant in variants:
                    rng = np.random.default_rng([seed, int(task), int(init), VARIANTS.index(variant)])
                    run = episode(env, _actor(policy, variant, rng, noise), init, horizons, seed=seed,
                                  on_reset=getattr(policy, "reset", None))
                    out.append({**run, "task": int(task), "variant": variant})
                    if say:
                        say(f"task {task} init {init} {variant}: success={run['success']} steps={run['steps']}")
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
        return [{**m, "obs": z["obs"][bounds[i] : bounds[i + 1]]} for i, m in enumerate(meta)]


def demo_episodes(demos: Any, tasks: Sequence[int]) -> list[dict]:
    """The demonstrations of ``tasks`` as successful episodes."""
    return [{"obs": demos.obs[demos.episode_start[e] : demos.episode_start[e] + demos.episode_length[e]],
             "task": int(demos.episode_task[e]), "success": True, "variant": "expert"}
            for e in range(demos.episodes) if int(demos.episode_task[e]) in set(tasks)]


def main(argv: Sequence[str] | None = None) -> int:
    from wmrl_agents.compare_libero import LiberoWorld
    from wmrl_agents.demos import Demos, split_init_states
    from wmrl_envs.world_models.learned_progress import LearnedProgress, fit_progress

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--demos", type=Path, required=True, help="expert demonstrations (.npz)")
    p.add_argument("--tasks", default="2,5,7", help="comma-separated libero_10 task indices")
    p.add_argument("--inits", type=int, default=20, help="train init states per task the SFT policy runs from")
    p.add_argument("--variants", default="greedy,sampled", help=f"comma-separated, from {','.join(VARIANTS)}")
    p.add_argument("--max-steps", type=int, default=400, help="episode length of the rollouts")
    p.add_argument("--epochs", type=int, default=30, help="fit epochs")
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
        rollouts = policy_rollouts(policy, tasks, lambda t: split_init_states(t)[0][: args.inits], variants,
                                   max_steps=args.max_steps)
        save_rollouts(rollouts, cache)
        print(f"{len(rollouts)} rollouts in {time.perf_counter() - start:.0f} s -> {cache}")
    episodes = demo_episodes(demos, tasks) + rollouts
    model = LearnedProgress()
    history = fit_progress(model, episodes, epochs=args.epochs)
    model.save(args.out)
    wins = sum(e["success"] for e in rollouts)
    print(f"fit on {len(episodes)} episodes ({wins}/{len(rollouts)} rollouts successful), "
          f"loss {history[0]:.4f} -> {history[-1]:.4f}; checkpoint {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
