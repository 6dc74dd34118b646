"""Coalescing: concurrent callers served by one batched call (the policy's generation and the
wrappers' world-model predictions use it), and the wrappers' predictions batched across env copies."""

import threading
import time

import gymnasium as gym
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from wmrl_agents.trl import EnvReward
from wmrl_envs.batching import Coalescer
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.world_models.base import Prediction
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper


def _queued(c: Coalescer) -> int:
    return sum(len(j.items) for j in c._queue)


def _call_while_busy(c: Coalescer, lock, requests):
    """Each request from its own thread while ``lock`` is held: they all queue, then run."""
    results = {}
    with lock:
        threads = [threading.Thread(target=lambda i=i, r=r: results.__setitem__(i, c(r))) for i, r in enumerate(requests)]
        for t in threads:
            t.start()
        while _queued(c) < sum(len(r) for r in requests):
            time.sleep(0.005)
    for t in threads:
        t.join(timeout=30)
    return [results[i] for i in range(len(requests))]


def test_callers_waiting_together_are_served_by_one_call():
    calls = []
    lock = threading.Lock()
    c = Coalescer(lambda items: calls.append(list(items)) or [x * 10 for x in items], lock=lock)
    out = _call_while_busy(c, lock, [[1, 2], [3], [4, 5, 6]])
    assert out == [[10, 20], [30], [40, 50, 60]]
    assert len(calls) == 1 and sorted(calls[0]) == [1, 2, 3, 4, 5, 6]
    assert (c.batches, c.items) == (1, 6)


def test_max_batch_splits_between_callers_never_within_one():
    calls = []
    lock = threading.Lock()
    c = Coalescer(lambda items: calls.append(len(items)) or list(items), lock=lock, max_batch=3)
    out = _call_while_busy(c, lock, [[1, 2], [3, 4], [5, 6, 7, 8]])
    assert out == [[1, 2], [3, 4], [5, 6, 7, 8]]
    assert calls == [2, 2, 4]  # a 4-item caller runs whole, alone


def test_a_failed_batch_raises_in_every_caller_and_the_next_batch_works():
    lock = threading.Lock()
    fail = [True]

    def fn(items):
        if fail[0]:
            raise RuntimeError("server down")
        return items

    c = Coalescer(fn, lock=lock)
    errors = []

    def call(x):
        try:
            c([x])
        except RuntimeError as e:
            errors.append(str(e))

    with lock:
        threads = [threading.Thread(target=call, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        while _queued(c) < 3:
            time.sleep(0.005)
    for t in threads:
        t.join(timeout=30)
    assert errors == ["server down"] * 3 and c._queue == []
    fail[0] = False
    assert c([7]) == [7]


def test_a_short_answer_is_an_error_not_a_shifted_result():
    with pytest.raises(RuntimeError, match="returned 1 results for 2 items"):
        Coalescer(lambda items: items[:1])([1, 2])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(), max_size=5), min_size=1, max_size=8), st.sampled_from([None, 1, 3]))
def test_every_caller_gets_fn_of_its_own_items(requests, max_batch):
    c = Coalescer(lambda items: [(x, x * x) for x in items], max_batch=max_batch)
    out = {}
    threads = [threading.Thread(target=lambda i=i, r=r: out.__setitem__(i, c(r))) for i, r in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert [out[i] for i in range(len(requests))] == [[(x, x * x) for x in r] for r in requests]


# -- the wrappers: predictions of env copies stepped from threads go out in batches ----------------

class SpawnableText(gym.Env):
    """Single-turn text env with ``spawn()``; reward = program length / 100; counts executions."""

    def __init__(self):
        self.observation_space = spaces.Text(1000, min_length=0)
        self.action_space = spaces.Text(1000, min_length=0)
        self.executions = []

    def spawn(self):
        twin = SpawnableText()
        twin.executions = self.executions
        return twin

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = options or {}
        task = options.get("task_id", "t")
        return "task", {"task_id": task, "group": options.get("group"), "wm_context": {"task_id": task, "max_turns": 1}}

    def step(self, action):
        self.executions.append(action)
        return "done", min(1.0, len(action) / 100), True, False, {"reward_source": "real", "score": len(action)}


class BatchCountingModel:
    """A world model that records each ``predict_batch`` call's size and holds it briefly."""

    def __init__(self):
        self.sizes = []
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def predict(self, context, action):
        return self.predict_batch([context], [action])[0]

    def predict_batch(self, contexts, actions):
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
            self.sizes.append(len(actions))
        return [Prediction(min(1.0, len(a) / 200)) for a in actions]


def _completions(n):
    return [[{"role": "assistant", "content": f"```python\n{'x = 1' * (i + 1)}\n```"}] for i in range(n)]


@pytest.mark.parametrize("wrap", ["world_model", "mixed"])
def test_reward_predictions_go_out_in_batches_one_at_a_time(wrap):
    model = BatchCountingModel()
    base = SpawnableText()
    env = (WorldModelWrapper(base, model) if wrap == "world_model"
           else MixedRewardWrapper(base, model, MixingConfig(anchor_rate=0.01, seed=0)))
    n = 16
    reward = EnvReward(env, concurrency=n)
    assert len(reward.envs) == n and all(e.unwrapped.executions is base.executions for e in reward.envs)
    rewards = reward(prompts=["p"] * n, completions=_completions(n), seed=list(range(n)),
                     task_id=["t"] * n, group=[f"g{i}" for i in range(n)])
    codes = ["x = 1" * (i + 1) for i in range(n)]
    assert rewards == pytest.approx([len(c) / 100 if c in base.executions else len(c) / 200 for c in codes])
    assert len(base.executions) <= 1  # predicted, not run (at 1% anchors, at most one here)
    assert sum(model.sizes) == n and len(model.sizes) < n and max(model.sizes) > 1
    assert model.peak == 1  # bounded: one batch in flight


def test_anchor_episodes_run_and_their_predictions_are_batched_too():
    model = BatchCountingModel()
    base = SpawnableText()
    env = MixedRewardWrapper(base, model, MixingConfig(anchor_rate=1.0, seed=0))
    n = 8
    rewards = EnvReward(env, concurrency=n)(prompts=["p"] * n, completions=_completions(n), seed=list(range(n)),
                                            task_id=["t"] * n, group=[f"g{i}" for i in range(n)])
    assert rewards == pytest.approx([5 * (i + 1) / 100 for i in range(n)])  # anchors: paid the real reward
    assert len(base.executions) == n and sum(model.sizes) == n
    assert env.state.stats()["calib_pairs"] == n


def test_an_env_without_spawn_says_to_pass_copies():
    class Plain(SpawnableText):
        spawn = None

    with pytest.raises(TypeError, match="pass a list of separately made env copies"):
        EnvReward(WorldModelWrapper(Plain(), BatchCountingModel()), concurrency=2)


def test_an_llm_world_model_server_sees_batched_concurrent_requests_bounded_by_its_workers():
    """16 completions scored at once through an OpenAI-style server: more than the old 2 requests in
    flight, never more than the backend's ``workers``; each program is judged exactly once."""
    import json

    from http_stub import StubServer

    from wmrl_envs.world_models import CHECKS, make_world_model

    answer = json.dumps({c: {"verdict": "pass", "confidence": 0.9, "reason": "ok"} for c in CHECKS} | {"quality": 0.5})
    seen = {"active": 0, "peak": 0, "posts": 0}
    lock = threading.Lock()

    def respond(method, path, body):
        if method == "GET":
            return 200, {"object": "list", "data": [{"id": "judge", "object": "model"}]}
        with lock:
            seen["active"] += 1
            seen["posts"] += 1
            seen["peak"] = max(seen["peak"], seen["active"])
        time.sleep(0.1)
        with lock:
            seen["active"] -= 1
        return 200, {"id": "x", "object": "chat.completion", "model": "judge", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}]}

    with StubServer(respond) as server:
        model = make_world_model(f"openai:{server.base}/v1")
        n = 16
        reward = EnvReward(WorldModelWrapper(SpawnableText(), model), concurrency=n)
        rewards = reward(prompts=["p"] * n, completions=_completions(n), seed=list(range(n)), task_id=["t"] * n,
                         group=[f"g{i}" for i in range(n)])
    assert len(rewards) == n and all(0.0 <= r <= 1.0 for r in rewards)
    assert seen["posts"] == n and 2 < seen["peak"] <= model.backend.workers
