"""Simulator steps saved by the world-model wrappers on a stock Gymnasium MuJoCo env (Reacher-v5).

    python benchmarks/simulator_saving.py [--episodes 200] [--horizon 10] [--out runs/simulator_saving]

A scripted reacher (a Jacobian-transpose controller mixed with uniform noise, the mix drawn per
episode) runs the same seeded episodes three ways, interleaved episode by episode:

- plain: ``gym.make("Reacher-v5")``, every step simulated up to its 50-step limit;
- world model: ``WorldModelWrapper(env, progress, wm_horizon=H)``: every episode stops at H;
- mixed: ``MixedRewardWrapper(env, progress, MixingConfig(anchor_rate=0.1), wm_horizon=H,
  real_score=RETURN_RANGE)``: anchor episodes run to the limit, the others stop at H.

``progress(obs) = 1 - |fingertip - target| / 0.41`` (0.41 m: the farthest the fingertip can be
from a target), read from ``obs[8:10]``. Simulator steps and seconds are counted beneath the
wrappers (Reacher reports no cost of its own); wall seconds time the whole episode (policy,
wrappers, world model, simulator). ratio = plain / arm. Timings come from a second pass over the
same episodes with fresh envs, so one-off costs (imports such as scikit-learn's at the first
isotonic refit) are not charged to episodes; the first pass's total is in the JSON (``cold_wall_s``).
It also reports how well progress at step H ranks the episodes' full real returns (Spearman), i.e.
whether the steps saved bought a usable score.
Prints a table and writes ``DIR/simulator_saving.json`` (default ``runs/simulator_saving``).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from scipy.stats import spearmanr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import table, write_json  # noqa: E402

from wmrl_envs.mixing import MixingConfig  # noqa: E402
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper  # noqa: E402

ENV_ID = "Reacher-v5"
LINKS = (0.1, 0.11)  # arm link lengths (m)
MAX_DISTANCE = sum(LINKS) + 0.2  # fingertip reach + the target disc's radius
RETURN_RANGE = (-50.0, 0.0)  # Reacher-v5 returns: about -45 (random torques) to -5 (the controller)
GAINS = (20.0, 0.05)  # controller: stiffness on the fingertip error, damping on joint velocity


def progress(obs: np.ndarray) -> float:
    """Task progress in [0, 1]: 1 at the target, 0 at the farthest possible point."""
    return float(np.clip(1.0 - np.linalg.norm(obs[8:10]) / MAX_DISTANCE, 0.0, 1.0))


def controller(obs: np.ndarray) -> np.ndarray:
    """Joint torques that pull the fingertip towards the target (Jacobian transpose, damped)."""
    q1 = np.arctan2(obs[2], obs[0])
    q12 = q1 + np.arctan2(obs[3], obs[1])
    l1, l2 = LINKS
    jacobian = np.array([[-l1 * np.sin(q1) - l2 * np.sin(q12), -l2 * np.sin(q12)],
                         [l1 * np.cos(q1) + l2 * np.cos(q12), l2 * np.cos(q12)]])
    kp, kd = GAINS
    return np.clip(kp * jacobian.T @ -obs[8:10] - kd * obs[6:8], -1.0, 1.0)


class SimCounter(gym.Wrapper):
    """Counts the steps and seconds of the simulator beneath it, resets included."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.steps, self.seconds = 0, 0.0

    def reset(self, **kwargs: Any) -> tuple[Any, dict]:
        t0 = time.perf_counter()
        out = self.env.reset(**kwargs)
        self.seconds += time.perf_counter() - t0
        return out

    def step(self, action: Any) -> tuple:
        t0 = time.perf_counter()
        out = self.env.step(action)
        self.seconds += time.perf_counter() - t0
        self.steps += 1
        return out


def mixed_supported() -> bool:
    """Whether this ``MixedRewardWrapper`` takes ``real_score`` (a return range since 0.3)."""
    return "real_score" in inspect.signature(MixedRewardWrapper).parameters


def make_arms(horizon: int) -> dict[str, tuple[gym.Env, SimCounter]]:
    """Each arm's outer env and the counter beneath it."""
    wraps = {
        "plain": lambda env: env,
        "world model": lambda env: WorldModelWrapper(env, progress, wm_horizon=horizon),
    }
    if mixed_supported():
        wraps["mixed"] = lambda env: MixedRewardWrapper(env, progress, MixingConfig(anchor_rate=0.1), wm_horizon=horizon,
                                                        real_score=RETURN_RANGE)
    counters = {name: SimCounter(gym.make(ENV_ID)) for name in wraps}
    return {name: (wrap(counters[name]), counters[name]) for name, wrap in wraps.items()}


def run_episode(env: gym.Env, seed: int, horizon: int) -> dict[str, Any]:
    """One episode of the noisy controller: the rewards paid, progress at ``horizon``, wall seconds."""
    rng = np.random.default_rng(seed)
    noise = rng.uniform()
    t0 = time.perf_counter()
    obs, _ = env.reset(seed=seed, options={"group": f"episode-{seed}"})  # fixes which are anchors
    paid, t, at_horizon, done, info = 0.0, 0, obs, False, {}
    while not done:
        action = (1 - noise) * controller(obs) + noise * rng.uniform(-1, 1, 2)
        obs, reward, terminated, truncated, info = env.step(action.astype(np.float32))
        paid, t = paid + float(reward), t + 1
        at_horizon = obs if t == horizon else at_horizon
        done = terminated or truncated
    wall_s = time.perf_counter() - t0
    anchor = (info.get("mixing") or {}).get("anchor")
    return {"reward": paid, "progress_at_horizon": progress(at_horizon), "wall_s": wall_s, "anchor": anchor}


def run_arms(horizon: int, episodes: int) -> dict[str, tuple[SimCounter, list[dict]]]:
    """Every arm on seeds 0..episodes-1, interleaved episode by episode; per arm its counter and runs."""
    arms = make_arms(horizon)
    runs: dict[str, list[dict]] = {name: [] for name in arms}
    for seed in range(episodes):
        for name, (env, _) in arms.items():
            runs[name].append(run_episode(env, seed, horizon))
    for env, _ in arms.values():
        env.close()
    return {name: (counter, runs[name]) for name, (_, counter) in arms.items()}


def summarize(name: str, counter: SimCounter, episodes: list[dict], plain: dict | None) -> dict[str, Any]:
    n = len(episodes)
    row = {
        "arm": name,
        "sim_steps/ep": counter.steps / n,
        "sim_ms/ep": 1e3 * counter.seconds / n,
        "wall_ms/ep": 1e3 * sum(e["wall_s"] for e in episodes) / n,
        "anchors": sum(bool(e["anchor"]) for e in episodes) if name == "mixed" else None,
    }
    base = plain or row
    for key, ratio in (("sim_steps/ep", "steps x"), ("sim_ms/ep", "sim_s x"), ("wall_ms/ep", "wall_s x")):
        row[ratio] = base[key] / row[key]
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=200)
    p.add_argument("--horizon", type=int, default=10, help="wm_horizon (Reacher-v5's own limit is 50)")
    p.add_argument("--out", type=Path, default=Path("runs/simulator_saving"), help="folder for the JSON")
    args = p.parse_args()

    cold = run_arms(args.horizon, args.episodes)
    warm = run_arms(args.horizon, args.episodes)
    rows: list[dict] = []
    for name, (counter, runs) in warm.items():
        rows.append(summarize(name, counter, runs, rows[0] if rows else None))
        rows[-1]["cold_wall_s"] = sum(e["wall_s"] for e in cold[name][1])

    plain = warm["plain"][1]
    rho = spearmanr([e["progress_at_horizon"] for e in plain], [e["reward"] for e in plain]).statistic
    print(table(rows, ["arm", "sim_steps/ep", "sim_ms/ep", "wall_ms/ep", "steps x", "sim_s x", "wall_s x", "anchors"]))
    print(f"\nprogress at step {args.horizon} ranks full-episode returns with Spearman {rho:.3f} "
          f"({args.episodes} episodes, {ENV_ID}, wm_horizon={args.horizon})")
    if "mixed" not in warm:
        print("mixed arm skipped: this MixedRewardWrapper has no real_score/return_range arguments")
    payload = {"args": {**vars(args), "out": str(args.out)}, "env": ENV_ID, "return_range": RETURN_RANGE,
               "arms": rows, "spearman_progress_at_horizon_vs_return": float(rho)}
    print("\nwrote", write_json("simulator_saving", payload, args.out))


if __name__ == "__main__":
    main()
