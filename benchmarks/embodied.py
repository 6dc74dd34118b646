"""WMRL/LIBERO-Long-v0: scripted-expert success, real vs world-model-truncated simulator cost, how
well progress at ``wm_horizon`` predicts final success, and the env's overhead over robosuite.

    python benchmarks/embodied.py [--episodes 2] [--rollouts 8] [--horizons 100 200 300] [--out DIR]

1. The scripted expert (no noise) on every libero_10 task: success rate, steps, simulator seconds.
2. Noisy-expert rollouts (noise drawn per rollout) on the tasks it solves, run to the end: each
   gives a real outcome (success) and ``PredicateProgress`` at every step. A world-model episode
   stops at ``wm_horizon``: its cost is the simulator time up to there, its score the progress
   there. AUC = how well that score ranks successes above failures.
3. Overhead: the same actions through ``env.step`` and through a bare robosuite ``ControlEnv``.

Simulator steps and seconds are the env's ``info["cost"]``: they include each reset's 10 settle
steps. Prints tables and writes ``DIR/libero.json`` (default ``runs/embodied`` in the cwd).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from sklearn.metrics import roc_auc_score
from tqdm.auto import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import table, write_json  # noqa: E402

import wmrl_envs  # noqa: E402, F401
from wmrl_agents.expert import ScriptedExpert  # noqa: E402
from wmrl_envs.embodied import suite  # noqa: E402
from wmrl_envs.world_models.progress import PredicateProgress  # noqa: E402


def rollout(env, expert, progress, seed):
    """One full episode; returns success, per-step progress, simulator steps and seconds."""
    obs, info = env.reset(seed=seed)
    expert.reset()
    scores, sim_steps, sim_s = [], [], []
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(expert.act(obs))
        scores.append(progress.predict(info["wm_context"], obs).score)
        sim_steps.append(info["cost"]["sim_steps"])
        sim_s.append(info["cost"]["sim_s"])
        done = terminated or truncated
    return bool(info["success"]), np.array(scores), np.array(sim_steps), np.array(sim_s)


def expert_table(episodes: int) -> list[dict]:
    rows = []
    progress = PredicateProgress()
    for task in tqdm(range(10), desc="expert per task"):
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=task)
        expert = ScriptedExpert(env)
        runs = [rollout(env, expert, progress, seed) for seed in range(episodes)]
        env.close()
        rows.append({
            "task": task,
            "name": suite.task_names()[task][:48],
            "success": float(np.mean([r[0] for r in runs])),
            "steps/ep": float(np.mean([len(r[1]) for r in runs])),
            "sim_steps/ep": float(np.mean([r[2].sum() for r in runs])),
            "sim_s/ep": float(np.mean([r[3].sum() for r in runs])),
            "final_progress": float(np.mean([r[1][-1] for r in runs])),
        })
    return rows


def world_model_tables(tasks: list[int], rollouts: int, horizons: list[int]) -> tuple[list[dict], list[dict]]:
    progress = PredicateProgress()
    runs = []
    bar = tqdm(total=len(tasks) * rollouts, desc="noisy-expert rollouts")
    for task in tasks:
        env = gym.make("WMRL/LIBERO-Long-v0", task_id=task)
        for k in range(rollouts):
            noise = float(np.random.default_rng([task, k]).uniform(0.0, 1.0))
            expert = ScriptedExpert(env, noise=noise, seed=k)
            success, scores, sim_steps, sim_s = rollout(env, expert, progress, seed=1000 + k)
            runs.append({"task": task, "noise": noise, "success": success, "scores": scores,
                         "sim_steps": sim_steps, "sim_s": sim_s})
            bar.update(1)
        env.close()
    bar.close()
    y = np.array([r["success"] for r in runs])
    real_s = np.array([r["sim_s"].sum() for r in runs])
    real_steps = np.array([r["sim_steps"].sum() for r in runs])
    cost_rows = [{"arm": "real (to the end)", "sim_steps/ep": real_steps.mean(), "sim_s/ep": real_s.mean(),
                  "real/arm": 1.0, "auc": None, "success": y.mean(), "n": len(runs)}]
    for h in horizons:
        # A world-model episode ends at h, or earlier if the task is done (then progress is 1).
        at_h = np.array([r["scores"][min(h, len(r["scores"])) - 1] for r in runs])
        wm_s = np.array([r["sim_s"][:h].sum() for r in runs])
        wm_steps = np.array([r["sim_steps"][:h].sum() for r in runs])
        auc = float(roc_auc_score(y, at_h)) if 0 < y.sum() < len(y) else None
        cost_rows.append({"arm": f"world model, wm_horizon={h}", "sim_steps/ep": wm_steps.mean(),
                          "sim_s/ep": wm_s.mean(), "real/arm": real_s.mean() / wm_s.mean(), "auc": auc,
                          "success": y.mean(), "n": len(runs)})
    detail = [{"task": r["task"], "noise": round(r["noise"], 3), "success": r["success"],
               "steps": len(r["scores"]), "progress_final": float(r["scores"][-1]),
               **{f"progress@{h}": float(r["scores"][min(h, len(r["scores"])) - 1]) for h in horizons}}
              for r in runs]
    return cost_rows, detail


def overhead_table(task: int, steps: int, repeats: int) -> list[dict]:
    env = gym.make("WMRL/LIBERO-Long-v0", task_id=task, max_steps=steps)
    raw = suite.import_libero(suite.find_assets()).ControlEnv(
        bddl_file_name=str(suite.bddl_file(suite.task_names()[task])), has_renderer=False,
        has_offscreen_renderer=False, use_camera_obs=False, hard_reset=False, ignore_done=True)
    init = suite.init_states(suite.task_names()[task])[0]
    actions = np.random.default_rng(0).uniform(-0.3, 0.3, (steps, 7))
    actions[:, 6] = np.sign(actions[:, 6])
    best = {"env": np.inf, "robosuite": np.inf}
    for _ in tqdm(range(repeats), desc="overhead"):
        env.reset(seed=0, options={"init_state": 0})
        t0 = time.perf_counter()
        for a in actions:
            env.step(a)
        best["env"] = min(best["env"], (time.perf_counter() - t0) / steps)
        raw.reset()
        raw.set_init_state(init)
        t0 = time.perf_counter()
        for a in actions:
            raw.step(a)
        best["robosuite"] = min(best["robosuite"], (time.perf_counter() - t0) / steps)
    env.close()
    raw.close()
    overhead = best["env"] / best["robosuite"] - 1.0
    return [{"path": "robosuite ControlEnv.step", "ms/step": 1e3 * best["robosuite"], "overhead_%": 0.0},
            {"path": "WMRL env.step (+ goal atoms, info)", "ms/step": 1e3 * best["env"],
             "overhead_%": 100 * overhead}]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=2, help="noise-free expert episodes per task")
    p.add_argument("--rollouts", type=int, default=8, help="noisy rollouts per solvable task")
    p.add_argument("--horizons", type=int, nargs="+", default=[100, 200, 300])
    p.add_argument("--overhead-steps", type=int, default=300)
    p.add_argument("--overhead-repeats", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path("runs/embodied"), help="folder for libero.json")
    args = p.parse_args()

    experts = expert_table(args.episodes)
    print(table(experts, ["task", "name", "success", "steps/ep", "sim_steps/ep", "sim_s/ep", "final_progress"]))
    solved = [r["task"] for r in experts if r["success"] > 0]
    print(f"\nexpert solves {len(solved)}/10 tasks; mean success {np.mean([r['success'] for r in experts]):.2f}\n")

    cost, detail = world_model_tables(solved, args.rollouts, args.horizons)
    print(table(cost, ["arm", "sim_steps/ep", "sim_s/ep", "real/arm", "auc", "success", "n"]))

    overhead = overhead_table(3, args.overhead_steps, args.overhead_repeats)
    print()
    print(table(overhead, ["path", "ms/step", "overhead_%"]))
    path = write_json("libero", {"args": {**vars(args), "out": str(args.out)}, "expert": experts,
                                 "world_model": cost, "rollouts": detail, "overhead": overhead}, args.out)
    print("\nwrote", path)


if __name__ == "__main__":
    main()
