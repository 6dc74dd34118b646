"""Env copies for threads: ``MLEEnv.spawn`` shares tasks and the executor, whose ``workers`` (not
the number of env copies) bound the programs in flight, through the env and the reward API."""

import threading
import time

import gymnasium as gym
import pytest

from mle.conftest import FakeExecutor
from wmrl_agents.grpo import EnvPool
from wmrl_agents.trl import EnvReward
from wmrl_envs.copies import env_copies, spawn_env
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.wrappers import MixedRewardWrapper

SUBMIT = "import shutil\nshutil.copy('data/sample_submission.csv', 'submission.csv')\n"


class SlowExecutor(FakeExecutor):
    """The fake sandbox with ``workers`` slots; each run takes 0.2 s; records the peak in flight."""

    def __init__(self, workers: int) -> None:
        super().__init__()
        self.workers = workers
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def run(self, job):
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.2)
        try:
            return super().run(job)
        finally:
            with self.lock:
                self.active -= 1


def make(cache_root, workers, **kw):
    return gym.make("WMRL/MLEDojo-v0", executor=SlowExecutor(workers), cache_dir=str(cache_root), **kw)


def test_spawned_copies_share_tasks_and_executor_and_keep_their_own_episode(cache_root):
    env = make(cache_root, 2)
    twin = spawn_env(env)
    a, b = env.unwrapped, twin.unwrapped
    assert a is not b and a.tasks is b.tasks and a.executor is b.executor
    env.reset(seed=0, options={"task_id": a.task_ids[0]})
    twin.reset(seed=1, options={"task_id": a.task_ids[1]})
    assert (a.task.id, b.task.id) == (a.task_ids[0], a.task_ids[1])
    twin.close()
    assert a._executor is not None  # a copy never closes the shared executor
    _, r, done, _, info = env.step(SUBMIT)
    assert done and info["status"] == "ok"


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_programs_in_flight_follow_the_executor_workers_through_the_reward(cache_root, workers):
    env = make(cache_root, workers)
    reward = EnvReward(env)  # one env given: copies are spawned up to the executor's workers
    assert len(reward.envs) == workers
    n = 6
    task = env.unwrapped.task_ids[0]
    completions = [[{"role": "assistant", "content": f"```python\n{SUBMIT}```"}]] * n
    rewards = reward(prompts=["p"] * n, completions=completions, seed=list(range(n)), task_id=[task] * n,
                     group=[f"g{i}" for i in range(n)])
    ex = env.unwrapped.executor
    assert len(ex.jobs) == n and ex.peak == workers
    assert len(set(rewards)) == 1  # the same program scores the same in every copy


def test_more_copies_than_workers_never_run_more_programs_than_workers(cache_root):
    env = make(cache_root, 2)
    pool = EnvPool(env, concurrency=5)
    task = env.unwrapped.task_ids[0]

    class Submit:
        def sample(self, obs, info, rng):
            return SUBMIT, None

    episodes = pool.run([(task, f"g{i}", i) for i in range(8)], Submit())
    assert [e.status for e in episodes] == ["ok"] * 8 and env.unwrapped.executor.peak == 2


def test_mixed_copies_share_one_mixing_state(cache_root):
    env = MixedRewardWrapper(make(cache_root, 2), lambda code: 0.5, MixingConfig(anchor_rate=1.0, seed=0))
    copies = env_copies(env, 3)
    assert len({id(c.state) for c in copies}) == 1 and len({id(c.unwrapped) for c in copies}) == 3


def test_bad_concurrency_is_a_clear_error(cache_root):
    with pytest.raises(ValueError, match="concurrency must be a positive number"):
        env_copies(make(cache_root, 1), 0)
