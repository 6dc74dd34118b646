"""The typed step contract: a replayed step is the recorded one, timeouts included."""

from __future__ import annotations

import json
from typing import get_args, get_type_hints

import gymnasium as gym
import numpy as np
import pytest

import wmrl_envs  # noqa: F401
from wmrl_agents.grpo import run_episode
from wmrl_envs.contract import COST_KEYS, Cost, CostKey, StepInfo, add_cost, zero_cost
from wmrl_envs.replay import OutcomeStore, ReplayWrapper

SPIN = "while True:\n    pass\n"
PROGRAM = """\
import pandas as pd
pd.read_csv("data/sample_submission.csv").to_csv("submission.csv", index=False)
"""
CONTRACT_KEYS = ("status", "timed_out", "cost", "score", "reward_source")


class Send:
    """A policy that sends one program (its record is the program)."""

    def __init__(self, program: str) -> None:
        self.program = program

    def sample(self, obs, info, rng):
        return self.program, self.program


@pytest.fixture(scope="module")
def tight_env():
    """The penguins task with a 1 s CPU limit: a busy loop is stopped by it."""
    env = gym.make("WMRL/MLEDojo-v0", split="heldout", tasks=["penguins"], limits={"cpu_s": 1.0, "wall_s": 20.0})
    yield env
    env.close()


def test_a_replayed_timeout_is_the_recorded_timeout(tight_env, tmp_path):
    wrapped = ReplayWrapper(tight_env, OutcomeStore(tmp_path / "outcomes.jsonl"))
    steps = []
    for _ in range(2):
        wrapped.reset(options={"task_id": "penguins", "group": "g"})
        steps.append(wrapped.step(SPIN)[4])
    recorded, replayed = steps
    assert (recorded["replayed"], replayed["replayed"]) == (False, True)
    assert recorded["status"] == "run_failed" and recorded["timed_out"] is True
    assert {k: replayed[k] for k in CONTRACT_KEYS} == {k: recorded[k] for k in CONTRACT_KEYS}
    assert replayed["run"] == recorded["run"] and recorded["run"]["cpu_limit_hit"]

    episodes = [run_episode(wrapped, Send(SPIN), "penguins", "g", seed, np.random.default_rng(seed)) for seed in (0, 1)]
    assert [e.outcome for e in episodes] == ["timeout", "timeout"]  # both replayed: no run, same verdict
    assert episodes[0].cost == episodes[1].cost == recorded["cost"]


def test_add_cost_sums_partial_costs_key_by_key():
    total = add_cost(zero_cost(exec_s=1.0, sim_steps=2), None, {"exec_s": 0.5, "sim_steps": 3, "wm_s": None})
    assert total == {"exec_s": 1.5, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 5, "sim_s": 0.0}
    assert isinstance(total["sim_steps"], int)  # steps stay a count
    assert add_cost() == zero_cost()


def test_add_cost_names_a_key_outside_the_contract():
    with pytest.raises(TypeError, match=r"unknown cost key\(s\) \['gpu_s'\]"):
        add_cost({"gpu_s": 1.0})


def test_the_cost_keys_are_spelled_once():
    assert COST_KEYS == get_args(CostKey) == tuple(get_type_hints(Cost))
    assert "timed_out" in get_type_hints(StepInfo)


def test_a_run_that_ends_in_time_is_not_timed_out(tight_env):
    tight_env.reset(options={"task_id": "penguins"})
    info = tight_env.step(PROGRAM)[4]
    assert info["status"] == "ok" and info["timed_out"] is False
    assert info["run"]["exit_code"] == 0 and info["run"]["cpu_s"] > 0 and not info["run"]["cpu_limit_hit"]


def test_a_predicted_step_carries_the_contract_and_never_times_out(tight_env):
    from wmrl_envs.world_models import CodeCheckWorldModel
    from wmrl_envs.wrappers import WorldModelWrapper

    wrapped = WorldModelWrapper(tight_env, CodeCheckWorldModel())
    wrapped.reset(options={"task_id": "penguins", "group": "g"})
    info = wrapped.step(SPIN)[4]
    assert info["reward_source"] == "world_model" and info["timed_out"] is False and info["score"] is None
    assert tuple(info["cost"]) == COST_KEYS and info["cost"]["exec_s"] == 0.0 and info["cost"]["wm_s"] > 0
    episode = run_episode(wrapped, Send(SPIN), "penguins", "g", 0, np.random.default_rng(0))
    assert episode.outcome == "predicted" and not episode.timed_out


def test_a_failed_run_recorded_without_its_timeout_verdict_runs_again(tight_env, tmp_path):
    store = OutcomeStore(tmp_path / "outcomes.jsonl")
    wrapped = ReplayWrapper(tight_env, store)
    wrapped.reset(options={"task_id": "penguins"})
    wrapped.step(SPIN)
    line = json.loads((tmp_path / "outcomes.jsonl").read_text())
    key, recorded = line["key"], line["outcome"]
    old = {**recorded, "info": {k: v for k, v in recorded["info"].items() if k != "timed_out"}}
    store.put(key, old)  # as a table written before steps reported timed_out holds it
    wrapped.reset(options={"task_id": "penguins"})
    info = wrapped.step(SPIN)[4]
    assert info["replayed"] is False and info["timed_out"] is True
    assert store.get(key)["info"]["timed_out"] is True  # recorded anew: the next use replays


def test_the_wm_context_names_the_limits_the_env_enforces(tight_env):
    ctx = tight_env.reset(options={"task_id": "penguins"})[1]["wm_context"]
    assert ctx["limits"] == {"wall_s": 20.0, "cpu_s": 1.0, "memory_mb": 2048.0}  # limits= overrides the task's 60 s
    assert ctx["task_id"] == "penguins" and ctx["max_turns"] == 1 and ctx["reward_mode"] == "percentile"
