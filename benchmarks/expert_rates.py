"""WMRL/LIBERO-Long-v0: the scripted expert's success per task, expert demonstrations, and a
behaviour-cloned policy's success on held-out init states (the "SFT" row).

    python benchmarks/expert_rates.py [--tasks 0 1 ...] [--inits 5] [--epochs 100]
                                      [--sft-inits 3] [--demos FILE] [--out DIR]

1. The expert (no noise) from the first ``--inits`` *train* init states of each task
   (:func:`wmrl_agents.demos.split_init_states`): success rate, steps, simulator seconds. Its
   successful episodes are the demonstrations, written to ``--demos`` (``.npz``).
2. :class:`wmrl_agents.bc.BCPolicy` fitted on them (``--epochs``; skipped with ``--epochs 0``), then run
   deterministically (its mean action) from ``--sft-inits`` *held-out* init states of each task.

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

from wmrl_agents.demos import Demos, record_demos, run_episode, split_init_states  # noqa: E402
from wmrl_envs.embodied.libero_env import resolve_task  # noqa: E402


def sft_table(policy, tasks: list[int], inits: int, seed: int = 0) -> list[dict]:
    """The BC policy's mean action from the first ``inits`` held-out init states of each task."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401
    from wmrl_agents.bc import check_policy_fits_env
    from wmrl_envs.embodied import suite

    rows = []
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=task)
        check_policy_fits_env(policy, env)
        _, held = split_init_states(task, seed=seed)
        runs = [run_episode(env, lambda obs, info: policy.act(obs, info["task_id"]), i, seed=seed)
                for i in held[:inits]]
        env.close()
        rows.append({"task": task, "name": suite.task_names()[task][:48], "episodes": len(runs),
                     "success": float(np.mean([r["success"] for r in runs])),
                     "steps/ep": float(np.mean([r["steps"] for r in runs])),
                     "inits": held[:inits], "successes": [r["success"] for r in runs]})
        print(f"SFT task {task}: {rows[-1]['success']:.2f}", flush=True)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", nargs="+", default=[str(t) for t in range(10)], help="indices or names")
    p.add_argument("--inits", type=int, default=5, help="train init states per task for the expert")
    p.add_argument("--epochs", type=int, default=100, help="BC epochs (0: no BC)")
    p.add_argument("--sft-inits", type=int, default=3, help="held-out init states per task for BC")
    p.add_argument("--seed", type=int, default=0, help="split seed")
    p.add_argument("--demos", type=Path, default=None, help="demonstrations file (default OUT/demos.npz)")
    p.add_argument("--out", type=Path, default=Path("runs/embodied"))
    args = p.parse_args()
    tasks = [resolve_task(t) for t in args.tasks]  # an unknown task fails here, before any simulation
    if args.inits < 1 or args.sft_inits < 0 or args.epochs < 0:
        p.error("need --inits >= 1, --sft-inits >= 0, --epochs >= 0")
    demos_path = args.demos or args.out / "demos.npz"

    start = time.perf_counter()
    demos, experts = record_demos(tasks, args.inits, seed=args.seed, progress=lambda m: print(m, flush=True))
    demos.save(demos_path)
    print(table(experts, ["task", "name", "episodes", "success", "steps/ep", "sim_s/ep"]))
    solved = [r["task"] for r in experts if r["success"] > 0]
    print(f"\nexpert solves {len(solved)}/{len(tasks)} tasks; mean success "
          f"{np.mean([r['success'] for r in experts]):.2f}; {demos.episodes} demonstrations, {len(demos)} steps, "
          f"{demos_path.stat().st_size / 1e6:.2f} MB -> {demos_path}\n")

    sft, fit = [], {}
    if args.epochs and demos.episodes:
        from wmrl_agents.bc import BCPolicy

        demos = Demos.load(demos_path)
        policy = BCPolicy(obs_dim=demos.obs.shape[1], seed=args.seed)
        t0 = time.perf_counter()
        losses = policy.fit(demos.obs, demos.actions, demos.task, epochs=args.epochs, seed=args.seed)
        fit = {"epochs": args.epochs, "loss_first": losses[0], "loss_last": losses[-1],
               "fit_s": time.perf_counter() - t0}
        print(f"BC fit: loss {losses[0]:.4f} -> {losses[-1]:.4f} in {fit['fit_s']:.1f} s")
        if args.sft_inits:
            sft = sft_table(policy, tasks, args.sft_inits, seed=args.seed)
            print(table(sft, ["task", "name", "episodes", "success", "steps/ep"]))
    path = write_json("expert_rates", {
        "args": {**vars(args), "out": str(args.out), "demos": str(demos_path)},
        "expert": experts, "demos": {"episodes": demos.episodes, "steps": len(demos),
                                     "bytes": demos_path.stat().st_size},
        "bc_fit": fit, "sft": sft, "wall_s": time.perf_counter() - start}, args.out)
    print("\nwrote", path)


if __name__ == "__main__":
    main()
