"""The envs through Gymnasium's API, with a deterministic fake executor in place of the sandbox."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.utils.env_checker import check_env

import wmrl_envs  # noqa: F401
from wmrl_envs.mle.env import DSBenchEnv, MLEDojoEnv
from wmrl_envs.sandbox import Limits

from .conftest import FakeExecutor

COST_KEYS = {"exec_s", "exec_cpu_s", "wm_s", "sim_steps", "sim_s"}


def _perfect(task):
    return lambda data_dir: task.answers_path.read_bytes()


@pytest.fixture
def env(cache_root):
    return MLEDojoEnv(
        tasks=["telco-churn", "hpc-jobs"], executor=FakeExecutor(), cache_dir=cache_root
    )


@pytest.mark.parametrize("cls", [MLEDojoEnv, DSBenchEnv])
def test_check_env_passes_on_the_unwrapped_env(cls, cache_root):
    env = cls(executor=FakeExecutor(), cache_dir=cache_root)
    check_env(env, skip_render_check=True)


def test_gym_make_ids_and_defaults(cache_root):
    env = gym.make("WMRL/MLEDojo-v0", executor=FakeExecutor(), cache_dir=str(cache_root))
    assert env.spec.nondeterministic and env.unwrapped.reward_mode == "percentile"
    assert len(env.unwrapped.task_ids) >= 14
    assert set(env.unwrapped.task_ids).isdisjoint(
        gym.make(
            "WMRL/MLEDojo-v0", split="heldout", executor=FakeExecutor(), cache_dir=str(cache_root)
        ).unwrapped.task_ids
    )
    ds = gym.make("WMRL/DSBench-v0", executor=FakeExecutor(), cache_dir=str(cache_root))
    assert ds.unwrapped.reward_mode == "rpg" and len(ds.unwrapped.task_ids) >= 12


def test_reset_picks_tasks_by_seed_and_option(env):
    a, info_a = env.reset(seed=3)
    b, info_b = env.reset(seed=3)
    assert a == b and info_a["task_id"] == info_b["task_id"] and info_a["group"] == info_b["group"]
    groups = {env.reset()[1]["group"] for _ in range(5)}
    assert len(groups) == 5
    _, info = env.reset(options={"task_id": "hpc-jobs", "group": "g7"})
    assert info["task_id"] == "hpc-jobs" and info["group"] == "g7"
    with pytest.raises(
        ValueError, match="valid ids: telco-churn, hpc-jobs|valid ids: hpc-jobs, telco-churn"
    ):
        env.reset(options={"task_id": "nope"})
    with pytest.raises(ValueError, match="valid ids: .*telco-churn"):
        MLEDojoEnv(tasks=["nope"], executor=FakeExecutor())


def test_observation_and_wm_context(env):
    obs, info = env.reset(options={"task_id": "telco-churn"})
    for needle in (
        "Telco Customer Churn",
        "data/train.csv: 4875 rows",
        "roc_auc",
        "id,churn",
        "wall 60 s",
        "turn 1 of 1",
    ):
        assert needle in obs
    ctx = info["wm_context"]
    json.dumps(ctx)
    assert ctx["task_type"] == "binary" and ctx["metric"] == "roc_auc" and ctx["target"] == "churn"
    train = ctx["files"]["train.csv"]
    assert train["n_rows"] == 4875 and train["columns"]["churn"] == "int64"
    assert 0 < train["nan_fraction"]["total_charges"] < 0.01
    assert ctx["submission_columns"] == ["id", "churn"] and ctx["limits"]["wall_s"] == 60.0


def test_step_info_and_rewards(env):
    task = env.tasks["telco-churn"]
    env._executor.programs["perfect"] = _perfect(task)
    env.reset(options={"task_id": "telco-churn"})
    obs, reward, terminated, truncated, info = env.step("perfect")
    assert (terminated, truncated) == (True, False)
    assert info["reward_source"] == "real" and set(info["cost"]) == COST_KEYS
    assert info["cost"]["exec_s"] == 0.25 and info["score"] == 1.0
    assert reward == 1.0 and info["percentile"] == 1.0 and info["rpg"] == 1.0
    assert "Test score (roc_auc, higher is better): 1" in obs
    env.reset(options={"task_id": "telco-churn"})
    _, reward, _, _, info = env.step("print('sample')")
    assert info["score"] == 0.5 and 0.0 < reward < 0.2  # the sample submission is at the bottom
    with pytest.raises(RuntimeError, match="reset"):
        env.step("print(1)")


@pytest.mark.parametrize(
    "action", ["", "   \n", None, 42, b"print(1)", "print(1", "\x00\x01\x02", "x" * 100_001]
)
def test_bad_actions_pay_zero_without_running(env, action):
    env.reset(seed=0)
    n_jobs = len(env._executor.jobs)
    _, reward, terminated, _, info = env.step(action)
    assert (
        reward == 0.0
        and terminated
        and info["status"] == "invalid_action"
        and info["score"] is None
    )
    assert len(env._executor.jobs) == n_jobs
    assert info["feedback"].count("Error (invalid action)") == 1


def test_missing_submission_and_raw_mode(cache_root):
    fake = FakeExecutor({"nothing": lambda data_dir: None})
    env = MLEDojoEnv(
        tasks=["cps-wages"], split="all", reward_mode="raw", executor=fake, cache_dir=cache_root
    )
    env.reset(seed=0)
    _, reward, _, _, info = env.step("nothing")
    task = env.tasks["cps-wages"]
    assert info["status"] == "invalid_submission" and "no submission.csv" in info["feedback"]
    assert reward == pytest.approx(
        task.baseline_score
    )  # raw mode: a failure scores like the sample


def test_multi_turn_grades_validation_then_test(cache_root):
    fake = FakeExecutor()
    env = MLEDojoEnv(tasks=["telco-churn"], max_turns=3, executor=fake, cache_dir=cache_root)
    obs, _ = env.reset(seed=0)
    assert "You have 3 turns" in obs
    task = env.tasks["telco-churn"]
    for turn in (1, 2):
        obs, reward, terminated, _, info = env.step("print('sample')")
        assert (reward, terminated, info["phase"], info["turn"]) == (0.0, False, "validation", turn)
        assert info["score"] == 0.5 and "percentile" not in info
        assert "held out from train.csv" in obs and f"turn {turn + 1} of 3" in obs
    dev_dir = fake.jobs[0].data_dir
    dev_train, dev_test = pd.read_csv(dev_dir / "train.csv"), pd.read_csv(dev_dir / "test.csv")
    assert len(dev_train) + len(dev_test) == 4875 and "churn" not in dev_test.columns
    assert "private" not in str(dev_dir.relative_to(task.work_dir)) and dev_dir.name == "public"
    _, reward, terminated, _, info = env.step("print('sample')")
    assert terminated and info["phase"] == "test" and fake.jobs[-1].data_dir == task.public_dir
    assert "percentile" in info


def test_limits_reach_the_job(cache_root):
    fake = FakeExecutor()
    env = MLEDojoEnv(
        tasks=["penguins"],
        split="heldout",
        limits={"wall_s": 5},
        executor=fake,
        cache_dir=cache_root,
    )
    env.reset(seed=0)
    env.step("print(1)")
    assert fake.jobs[-1].limits.wall_s == 5.0 and fake.jobs[-1].limits.memory_mb == 2048
    env = MLEDojoEnv(
        tasks=["penguins"],
        split="heldout",
        limits=Limits(cpu_s=7),
        executor=fake,
        cache_dir=cache_root,
    )
    env.reset(seed=0)
    env.step("print(1)")
    assert fake.jobs[-1].limits.cpu_s == 7 and "/private" not in str(fake.jobs[-1].data_dir)


def test_bad_arguments_are_value_errors(cache_root):
    with pytest.raises(ValueError, match="reward_mode must be one of"):
        MLEDojoEnv(reward_mode="elo", executor=FakeExecutor())
    with pytest.raises(ValueError, match="unknown split"):
        MLEDojoEnv(split="dev", executor=FakeExecutor())
    with pytest.raises(ValueError, match="max_turns"):
        MLEDojoEnv(max_turns=0, executor=FakeExecutor())
    with pytest.raises(ValueError, match="existing folder"):
        MLEDojoEnv(suite="/no/such/folder", executor=FakeExecutor())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs(cache_root, mode):
    kwargs = dict(
        tasks=["telco-churn", "hpc-jobs"], executor=FakeExecutor(), cache_dir=str(cache_root)
    )
    vector_kwargs = {"shared_memory": False} if mode == "async" else {}
    envs = gym.make_vec(
        "WMRL/MLEDojo-v0",
        num_envs=2,
        vectorization_mode=mode,
        vector_kwargs=vector_kwargs,
        **kwargs,
    )
    try:
        obs, info = envs.reset(seed=[0, 1])
        assert isinstance(obs, tuple) and all(o.startswith("# Task ") for o in obs)
        assert set(info["task_id"]) <= {"telco-churn", "hpc-jobs"}
        obs, reward, terminated, truncated, info = envs.step(
            ("print(1)", "")
        )  # a success and a failure
        assert terminated.all() and not truncated.any()
        assert 0 <= reward[0] <= 1 and reward[1] == 0.0
        assert list(info["status"]) == ["ok", "invalid_action"]
        assert list(info["cost"]["exec_s"]) == [0.25, 0.0]
        assert info["score"][0] >= 0 and np.isnan(info["score"][1])  # numpy stores the None as NaN
    finally:
        envs.close()


def test_dsbench_rpg_of_sample_and_perfect_answers(dsbench_tasks, cache_root):
    ids = [
        "titanic",
        "hmda-denial",
        "college-distance",
        "fishing-mode",
    ]  # accuracy, log-loss, RMSE, 4-class log-loss
    fake = FakeExecutor({f"perfect-{i}": _perfect(dsbench_tasks[i]) for i in ids})
    env = DSBenchEnv(tasks=ids, executor=fake, cache_dir=cache_root)
    for task_id in ids:
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(f"perfect-{task_id}")
        assert reward == pytest.approx(1.0) and info["rpg"] == pytest.approx(1.0)
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step("print('sample')")
        assert reward == 0.0 and info["score"] == pytest.approx(env.tasks[task_id].baseline_score)
