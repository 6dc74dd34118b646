"""wmrl_agents.demos.rollout records an episode."""
import numpy as np

from wmrl_agents import demos


class _Env:
    """Three steps of a 2-d state; success on the last."""

    def reset(self, seed=None, options=None):
        self.t = 0
        return {"state": np.zeros(2)}, {}

    def step(self, action):
        self.t += 1
        info = {"cost": {"sim_s": 0.5}, "success": self.t == 3, "instruction": "do it"}
        return {"state": np.full(2, self.t)}, 0.0, self.t == 3, False, info


def test_rollout_records_the_episode():
    run = demos.rollout(_Env(), lambda obs, info: np.ones(7), init=0)
    assert run["steps"] == 3 and run["success"] and run["sim_s"] == 1.5 and run["obs"].shape == (3, 2)
