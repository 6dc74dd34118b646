"""WMRL/LIBERO-Long-v0: the scripted expert's success per task, expert demonstrations, and a
behaviour-cloned policy's success on held-out init states (the "SFT" row).

    python benchmarks/expert_rates.py [--tasks 0 1 ...] [--inits 5] [--dart-inits 0 --dart-noise 0.1]
                                      [--epochs 100] [--hidden 256 256] [--chunk 1] [--sft-inits 3] [--sft-first 0]
                                      [--demos FILE] [--load-demos FILE ...] [--out DIR]

1. The expert (no noise) from the first ``--inits`` *train* init states of each task
   (:func:`wmrl_agents.demos.split_init_states`): success rate, steps, simulator seconds. Its
   successful episodes are the demonstrations, written to ``--demos`` (``.npz``). With
   ``--dart-inits N`` it also runs from N train init states with Gaussian arm noise
   (``--dart-noise``) on the executed actions, recording the expert's clean labels (DART); those
   successes join the demonstrations. ``--load-demos`` skips all of this and reads files instead.
2. :class:`wmrl_agents.bc.BCPolicy` fitted on them (``--epochs``; skipped with ``--epochs 0``), then run
   deterministically (its mean action, the gripper command rounded to open/close) from
   ``--sft-inits`` *held-out* init states of each task.

Prints tables and writes ``DIR/expert_rates.json`` (default ``runs/embodied``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import table, write_json  # noqa: E402

from wmrl_agents.demos import Demos, record_demos, rollout, split_init_states  # noqa: E402
from wmrl_envs.embodied.libero_env import resolve_task  # noqa: E402


def bc_action(policy, obs, info) -> np.ndarray:
    """The BC policy's mean action with the gripper command rounded to -1 (open) or +1 (close)."""
    action = np.array(policy.act(obs, info["task_id"]), dtype=np.float32)
    action[6] = 1.0 if action[6] > 0 else -1.0
    return action


def sft_table(policy, tasks: list[int], inits: int, seed: int = 0, first: int = 0) -> list[dict]:
    """The BC policy (:func:`bc_action`) from held-out init states ``first .. first + inits - 1``
    of each task."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401
    from wmrl_agents.bc import check_policy_fits_env
    from wmrl_envs.embodied import suite

    rows = []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=task)
        check_policy_fits_env(policy, env)
        _, held = split_init_states(task, seed=seed)
        runs = [rollout(env, lambda obs, info: bc_action(policy, obs, info), i, seed=seed,
                        on_reset=policy.reset) for i in held[first : first + inits]]
        env.close()
        rows.append({"task": task, "name": suite.task_names()[task][:48], "episodes": len(runs),
                     "success": float(np.mean([r["success"] for r in runs])),
                     "steps/ep": float(np.mean([r["steps"] for r in runs])),
                     "inits": held[first : first + inits], "successes": [r["success"] for r in runs]})
        print(f"SFT task {task}: {rows[-1]['success']:.2f}", flush=True)
    return rows


def record(args, tasks: list[int]) -> tuple[Demos, list[dict], list[dict]]:
    """The expert table (clean runs) and the demonstrations (clean and DART successes)."""
    say = lambda m: print(m, flush=True)  # noqa: E731
    clean, experts = record_demos(tasks, args.inits, seed=args.seed, progress=say)
    print(table(experts, ["task", "name", "episodes", "success", "steps/ep", "sim_s/ep"]))
    solved = [r["task"] for r in experts if r["success"] > 0]
    print(f"\nexpert solves {len(solved)}/{len(tasks)} tasks; mean success "
          f"{np.mean([r['success'] for r in experts]):.2f}\n")
    dart, noisy = Demos.from_episodes([], [""] * 10), []
    if args.dart_inits and solved:
        dart, noisy = record_demos(solved, args.dart_inits, seed=args.seed, progress=say, noise=args.dart_noise)
        print(table(noisy, ["task", "name", "episodes", "success", "steps/ep"]))
    return Demos.concat([clean, dart]), experts, noisy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=[str(t) for t in range(10)], help="indices or names")
    p.add_argument("--inits", type=int, default=5, help="train init states per task for the expert")
    p.add_argument("--dart-inits", type=int, default=0, help="extra noisy expert episodes per solved task")
    p.add_argument("--dart-noise", type=float, default=0.1, help="std of the arm noise of those episodes")
    p.add_argument("--epochs", type=int, default=100, help="BC epochs (0: no BC)")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256], help="BC hidden layer sizes")
    p.add_argument("--lr", type=float, default=1e-3, help="BC learning rate")
    p.add_argument("--chunk", type=int, default=1, help="BC action chunk (temporal ensembling when > 1)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads for the BC fit")
    p.add_argument("--sft-inits", type=int, default=3, help="held-out init states per task for BC")
    p.add_argument("--sft-first", type=int, default=0,
                   help="skip this many held-out init states (e.g. those used to choose the BC settings)")
    p.add_argument("--seed", type=int, default=0, help="split seed")
    p.add_argument("--demos", type=Path, default=None, help="demonstrations file (default OUT/demos.npz)")
    p.add_argument("--load-demos", type=Path, nargs="+", default=None,
                   help="use these demonstrations files instead of running the expert")
    p.add_argument("--out", type=Path, default=Path("runs/embodied"))
    args = p.parse_args()
    tasks = [resolve_task(t) for t in args.tasks]  # an unknown task fails here, before any simulation
    if args.inits < 1 or args.sft_inits < 0 or args.epochs < 0 or args.dart_inits < 0:
        p.error("need --inits >= 1, --sft-inits >= 0, --epochs >= 0, --dart-inits >= 0")
    demos_path = args.demos or args.out / "demos.npz"

    start = time.perf_counter()
    experts, noisy = [], []
    if args.load_demos:
        demos = Demos.concat([Demos.load(f) for f in args.load_demos])
        keep = np.isin(demos.episode_task, tasks)
        tasks = sorted({int(t) for t in demos.episode_task[keep]})
    else:
        demos, experts, noisy = record(args, tasks)
    demos.save(demos_path)
    print(f"{demos.episodes} demonstrations, {len(demos)} steps, "
          f"{demos_path.stat().st_size / 1e6:.2f} MB -> {demos_path}\n")

    sft, fit = [], {}
    if args.epochs and demos.episodes:
        import torch

        from wmrl_agents.bc import BCPolicy

        torch.set_num_threads(args.torch_threads)  # more threads than free cores slow the fit manyfold
        demos = Demos.load(demos_path).select(tasks)
        policy = BCPolicy(obs_dim=demos.obs.shape[1], hidden=args.hidden, seed=args.seed, chunk=args.chunk)
        t0 = time.perf_counter()
        losses = policy.fit(demos.obs, demos.actions, demos.task, epochs=args.epochs, lr=args.lr,
                            seed=args.seed, episode_start=demos.episode_start)
        fit = {"epochs": args.epochs, "hidden": args.hidden, "lr": args.lr, "chunk": args.chunk, "steps": len(demos),
               "loss_first": losses[0], "loss_last": losses[-1], "fit_s": time.perf_counter() - t0}
        print(f"BC fit: loss {losses[0]:.4f} -> {losses[-1]:.4f} in {fit['fit_s']:.1f} s")
        if args.sft_inits:
            solved = [t for t in tasks if np.any(demos.episode_task == t)]
            sft = sft_table(policy, solved, args.sft_inits, seed=args.seed, first=args.sft_first)
            print(table(sft, ["task", "name", "episodes", "success", "steps/ep"]))
            print(f"\nSFT mean success on held-out init states: {np.mean([r['success'] for r in sft]):.3f}")
    path = write_json("expert_rates", {
        "args": {**vars(args), "out": str(args.out), "demos": str(demos_path),
                 "load_demos": [str(f) for f in args.load_demos or []]},
        "expert": experts, "dart": noisy, "demos": {"episodes": demos.episodes, "steps": len(demos),
                                                    "bytes": demos_path.stat().st_size},
        "bc_fit": fit, "sft": sft, "wall_s": time.perf_counter() - start}, args.out)
    print("\nwrote", path)


if __name__ == "__main__":
    main()
