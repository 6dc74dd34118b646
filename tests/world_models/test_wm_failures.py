"""The LLM world model against real local HTTP servers that fail: a failure is never a reward, never
cached, bounded in time, and the wrappers fall back and count it."""

from __future__ import annotations

import json
import socket
import threading
import time

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from http_stub import StubServer

from wmrl_agents.grpo import GRPOTrainer
from wmrl_agents.trl import EnvReward
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.world_models import CHECKS, CodeCheckWorldModel, LLMCheckWorldModel, Prediction
from wmrl_envs.world_models.backends import OpenAIBackend
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper

from .conftest import CONTEXT, GOOD

ANSWER = json.dumps({c: {"verdict": "pass", "confidence": 0.9, "reason": "ok"} for c in CHECKS} | {"quality": 0.5})
LLM_SCORE = 0.9 ** len(CHECKS) * 0.5  # what the healthy server's answer scores
BUDGET_S = 1.0  # the hung-server tests' time budget
SLACK_S = 10.0  # generous: a loaded 2-core machine


class Server(StubServer):
    """An OpenAI chat-completions endpoint on 127.0.0.1 whose ``mode`` can change between calls:
    ``ok``, ``500``, ``400``, ``close`` (drops the connection unanswered), ``hang`` (never answers)
    or ``nonjson`` (HTTP 200 with an HTML page)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.posts = 0
        self.release = threading.Event()
        super().__init__(self._respond)
        self.url = f"{self.base}/v1"

    def _respond(self, method: str, path: str, body: bytes):
        if method != "POST":
            return 501, b""
        self.posts += 1
        mode = self.mode
        if mode == "hang":
            self.release.wait(60)
            return None
        if mode == "close":
            return None
        if mode in ("500", "400"):
            return int(mode), b'{"error": "no luck"}'
        if mode == "nonjson":
            return 200, b"<html><body>502 Bad Gateway</body></html>", "text/html"
        return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}}]}

    def close(self) -> None:
        self.release.set()
        super().close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


# Nothing here may hang: a test still running after 120 s fails.
pytestmark = pytest.mark.timeout(120, method="signal")


def llm(url: str, timeout_s: float = 5.0, **kw) -> LLMCheckWorldModel:
    return LLMCheckWorldModel(OpenAIBackend(url, model="judge", timeout_s=timeout_s, **kw))


def dead_url() -> str:
    """A loopback URL where nothing listens: connections are refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.mark.filterwarnings("ignore:LLM world model failed")
@pytest.mark.parametrize("mode, why", [("500", "HTTP 500"), ("close", "no answer"), ("nonjson", "non-JSON"),
                                       ("hang", "timed out")])
def test_a_failing_server_gives_a_failed_prediction_that_is_not_cached(server, mode, why):
    model = llm(server.url, timeout_s=BUDGET_S if mode == "hang" else 5.0)
    server.mode = mode
    start = time.monotonic()
    with pytest.warns(RuntimeWarning, match="not a reward"):
        failed = model.predict(CONTEXT, GOOD)
    if mode == "hang":
        assert time.monotonic() - start < BUDGET_S + SLACK_S
    assert failed.failed is not None and why in failed.failed and failed.score == 0.0
    assert model.failures == 1 and model.stats["cache_hits"] == 0
    server.mode = "ok"
    recovered = model.predict(CONTEXT, GOOD)  # the same code asks again: the failure was not cached
    assert recovered.failed is None and recovered.score == pytest.approx(LLM_SCORE)
    assert model.predict(CONTEXT, GOOD).score == pytest.approx(LLM_SCORE) and model.stats["cache_hits"] == 1


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_server_errors_are_retried_and_client_errors_are_not(server):
    server.mode = "500"
    assert "3 attempts" in llm(server.url, retries=2).predict(CONTEXT, GOOD).failed
    assert server.posts == 3
    server.mode = "400"
    assert "HTTP 400" in llm(server.url, retries=2).predict(CONTEXT, GOOD).failed
    assert server.posts == 4


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_a_refused_connection_fails_and_a_later_server_answers(server):
    model = llm(dead_url())
    failed = model.predict(CONTEXT, GOOD)
    assert "refused" in failed.failed.lower() and "check that the server is up" in failed.failed
    model.backend.base_url = server.url  # the server came up
    assert model.predict(CONTEXT, GOOD).score == pytest.approx(LLM_SCORE)


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_a_hung_server_holds_a_whole_batch_for_about_one_budget(server):
    server.mode = "hang"
    model = llm(server.url, timeout_s=BUDGET_S, workers=2)
    start = time.monotonic()
    preds = model.predict_batch([CONTEXT] * 12, [GOOD + f"# {i}\n" for i in range(12)])
    assert time.monotonic() - start < 2 * BUDGET_S + SLACK_S  # not 6 rounds of the budget
    assert all(p.failed for p in preds) and model.failures == 12
    assert sum("not sent" in p.failed for p in preds) >= 9


def test_a_backend_that_raises_is_a_failure_not_an_exception():
    class Broken:
        def complete(self, batch, schema):
            raise RuntimeError("GPU fell off the bus")

    with pytest.warns(RuntimeWarning):
        pred = LLMCheckWorldModel(Broken()).predict(CONTEXT, GOOD)
    assert "GPU fell off the bus" in pred.failed


# -- the wrappers ------------------------------------------------------------------------------

class CodeEnv(gym.Env):
    """Single-turn text env on CONTEXT; executing any program pays 0.42."""

    REAL = 0.42

    def __init__(self, max_turns: int = 1):
        self.observation_space = spaces.Text(10**6, min_length=0)
        self.action_space = spaces.Text(10**6, min_length=0)
        self.max_turns, self.executions, self.turn = max_turns, 0, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.turn = 0
        options = options or {}
        return "task", {"task_id": CONTEXT["task_id"], "group": options.get("group"),
                        "wm_context": {**CONTEXT, "max_turns": self.max_turns}}

    def step(self, action):
        self.executions += 1
        self.turn += 1
        done = self.turn >= self.max_turns
        return "ran", self.REAL if done else 0.0, done, False, {
            "reward_source": "real", "score": self.REAL, "cost": {"exec_s": 1.0}}


class Down:
    """A world model whose every prediction fails."""

    def predict(self, context, action):
        return Prediction.failure("server down")


def static_score(code: str = GOOD) -> float:
    return CodeCheckWorldModel().predict(CONTEXT, code).score


def never_anchor(env: gym.Env, model, **kw) -> MixedRewardWrapper:
    return MixedRewardWrapper(env, model, MixingConfig(anchor_rate=1e-9), **kw)


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_mixed_wrapper_falls_back_to_the_static_model_and_counts(server):
    env = CodeEnv()
    w = never_anchor(env, llm(server.url))
    server.mode = "500"
    w.reset(seed=0)
    _, reward, done, _, info = w.step(GOOD)
    assert done and info["reward_source"] == "world_model_fallback" and "HTTP 500" in info["wm_failure"]
    assert reward == pytest.approx(static_score()) and reward != 0.0
    assert info["mixing"]["wm_raw"] is None and env.executions == 0
    assert w.stats()["wm_failures"] == 1
    server.mode = "ok"
    w.reset(seed=1)
    _, reward, _, _, info = w.step(GOOD)
    assert info["reward_source"] == "world_model" and "wm_failure" not in info
    assert reward == pytest.approx(LLM_SCORE)  # the map is still the identity
    assert w.stats()["wm_failures"] == 1


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_execute_fallback_runs_the_episode_for_real(server):
    env = CodeEnv(max_turns=2)
    server.mode = "ok"
    w = WorldModelWrapper(env, llm(server.url), on_wm_failure="execute")
    w.reset(seed=0)
    _, _, done, _, info = w.step(GOOD)  # predicted
    assert not done and info["reward_source"] == "world_model" and env.executions == 0
    server.mode = "close"
    _, reward, done, _, info = w.step(GOOD + "# v2\n")  # fails: turn 1 is replayed, then turn 2 runs
    assert done and reward == CodeEnv.REAL and info["reward_source"] == "real"
    assert "wm_failure" in info and env.executions == 2 and info["cost"]["exec_s"] == 2.0
    assert w.wm_failures == 1


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_an_anchor_with_a_failed_prediction_pays_real_and_adds_no_pair(server):
    env = CodeEnv()
    w = MixedRewardWrapper(env, llm(server.url), MixingConfig(anchor_rate=1.0))
    server.mode = "nonjson"
    w.reset(seed=0)
    _, reward, _, _, info = w.step(GOOD)
    assert reward == CodeEnv.REAL and info["reward_source"] == "real" and "non-JSON" in info["wm_failure"]
    assert w.debiaser.n_pairs == 0 and w.stats()["wm_failures"] == 1


@pytest.mark.filterwarnings("ignore:LLM world model failed")
def test_raise_mode_raises_with_the_reason(server):
    server.mode = "500"
    w = never_anchor(CodeEnv(), llm(server.url), on_wm_failure="raise")
    w.reset(seed=0)
    with pytest.raises(RuntimeError, match="HTTP 500.*on_wm_failure"):
        w.step(GOOD)
    with pytest.raises(ValueError, match="on_wm_failure"):
        WorldModelWrapper(CodeEnv(), CodeCheckWorldModel(), on_wm_failure="ignore")


def test_a_failed_progress_model_raises_on_a_simulator():
    class Sim(gym.Env):
        observation_space = spaces.Box(-1, 1, (1,), np.float32)
        action_space = spaces.Box(-1, 1, (1,), np.float32)

        def reset(self, *, seed=None, options=None):
            return np.zeros(1, np.float32), {}

    with pytest.raises(RuntimeError, match="progress world model failed: server down"):
        WorldModelWrapper(Sim(), Down()).reset(seed=0)


# -- the trainers log the counts ---------------------------------------------------------------

class Submit:
    def sample(self, obs, info, rng):
        return GOOD, None

    def update(self, records, advantages):
        return {}

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


def test_grpo_logs_failures(tmp_path):
    env = never_anchor(CodeEnv(), Down())
    trainer = GRPOTrainer(env, Submit(), [CONTEXT["task_id"]], group_size=2, groups_per_update=2,
                          log_dir=tmp_path, progress=False)
    trainer.train(1)
    logged = json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[0])
    assert logged["wm/failures"] == 4 and env.stats()["wm_failures"] == 4


def test_trl_reward_logs_failures():
    logged = {}
    reward = EnvReward(never_anchor(CodeEnv(), Down()))
    rewards = reward(prompts=["p", "p"], completions=[GOOD, GOOD], seed=[0, 1], task_id=["toy-churn"] * 2,
                     group=["a", "b"], log_metric=logged.__setitem__)
    assert logged["wmrl/wm_failures"] == 2.0 and rewards == pytest.approx([static_score(GOOD.strip())] * 2)
