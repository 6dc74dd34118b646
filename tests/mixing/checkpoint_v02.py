"""A GRPOTrainer checkpoint written by wmrl 0.2.0 (commit 5d27691), for ``test_saved_state.py``.

``python tests/mixing/checkpoint_v02.py OUT`` (run with 0.2.0 on ``PYTHONPATH``) trains a WMRL arm
(a mixed text env, anchor rate 0.5) for 3 updates with checkpoints, copies its log folder and mixing
state to ``OUT/``, trains on to update 6 and writes the advantages of updates 3-5 to
``OUT/expected.json``. The test resumes the copy with the current code and must apply the same ones.
The env, world model and policy are the same in both versions; only the wrapper call differs (``trainer``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from wmrl_agents.grpo import GRPOTrainer
from wmrl_envs.mixing import MixingConfig, MixingState
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.wrappers import MixedRewardWrapper

CONFIG = dict(anchor_rate=0.5, seed=4, min_pairs=4)
CUT, UPDATES = 3, 6
ACTIONS = [f"program-{k}" for k in range(12)]


def real_score(action: str) -> float:
    return (int(action.rsplit("-", 1)[1]) * 7 % 12) / 11


class ProgramEnv(gym.Env):
    """Single-turn text env: a program's real reward is ``real_score``."""

    def __init__(self):
        self.observation_space = spaces.Text(100, min_length=0)
        self.action_space = spaces.Text(100, min_length=0)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        return "task", {"task_id": options.get("task_id"), "group": options.get("group"),
                        "wm_context": {"task_id": options.get("task_id"), "max_turns": 1}}

    def step(self, action):
        s = real_score(action)
        return "done", s, True, False, {"reward_source": "real", "score": s, "status": "ok"}


class WM:
    def predict(self, context, action):
        y = real_score(action)
        return Prediction(score=float(np.clip(0.2 + 0.5 * y + 0.1 * np.sin(5.0 * y), 0, 1)), cost_s=0.0)


class Recorder:
    """A seeded random policy that records the advantages it was given; no learning."""

    def __init__(self):
        self.applied: list[list[float]] = []

    def sample(self, obs, info, rng):
        action = ACTIONS[int(rng.integers(len(ACTIONS)))]
        return action, action

    def update(self, records, advantages):
        self.applied.append([float(a) for a in advantages])
        return {}

    def state_dict(self):
        return {"applied": self.applied}

    def load_state_dict(self, state):
        self.applied = [list(a) for a in state["applied"]]


def trainer(folder: Path, mixer: MixingState) -> tuple[GRPOTrainer, Recorder]:
    policy = Recorder()
    trainer = GRPOTrainer(MixedRewardWrapper(ProgramEnv(), WM(), state=mixer), policy, ["t0", "t1"], group_size=4,
                          groups_per_update=3, seed=2, progress=False, concurrency=1, log_dir=folder / "log")
    return trainer, policy


def main(out: Path) -> None:
    work = out / "live"
    t, policy = trainer(work, MixingState(MixingConfig(**CONFIG), state_path=work / "mixing.json"))
    t.train(CUT)
    shutil.copytree(work, out / "run")
    t.train(UPDATES)
    (out / "expected.json").write_text(json.dumps({"applied": policy.applied[CUT:]}))
    shutil.rmtree(work)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
