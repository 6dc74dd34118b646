"""LLMCheckWorldModel for real: a tiny random Qwen3 (log-prob verdicts) and a local OpenAI-style server."""

from __future__ import annotations

import json

import numpy as np
import pytest
from http_stub import StubServer

from wmrl_envs.world_models import CHECKS, LLMCheckWorldModel, make_world_model
from wmrl_envs.world_models.backends import OpenAIBackend

from .conftest import GOOD

# Served verdicts: alternate pass/fail so every value is checked, quality 0.7.
ANSWER = {c: {"verdict": "pass" if i % 2 == 0 else "fail", "confidence": 0.8, "reason": f"r{i}"}
          for i, c in enumerate(CHECKS)} | {"quality": 0.7}
EXPECTED = [0.8 if i % 2 == 0 else 0.2 for i in range(len(CHECKS))]
WELL_FORMED = json.dumps(ANSWER)
# Python-style quotes, a code fence, trailing commas and literals: what small models emit.
MALFORMED = "Sure! ```json\n" + WELL_FORMED.replace('"', "'").replace("}", ",}") + "\n```"
TRUNCATED = WELL_FORMED[: WELL_FORMED.index('"column_refs"') + 30]  # cut inside the sixth check


class FakeServer(StubServer):
    """An OpenAI chat-completions endpoint whose answer depends on a marker in the program."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        super().__init__(self._respond)
        self.url = f"{self.base}/v1"

    def _respond(self, method: str, path: str, body: bytes):
        if method == "GET":
            return 200, {"object": "list", "data": [{"id": "tiny-judge", "object": "model"}]}
        req = json.loads(body)
        self.requests.append(req)
        prompt = req["messages"][-1]["content"]
        text = next((t for m, t in (("#MALFORMED", MALFORMED), ("#TRUNCATED", TRUNCATED),
                                    ("#NONSENSE", "I cannot judge this.")) if m in prompt), WELL_FORMED)
        finish = "length" if text is TRUNCATED else "stop"
        return 200, {"id": "x", "object": "chat.completion", "model": req["model"],
                     "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}]}


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.close()


def p_values(pred) -> list[float]:
    return [round(pred.checks[c].p_pass, 6) for c in CHECKS]


def test_openai_backend_reads_well_formed_malformed_and_truncated_json(server, context):
    model = make_world_model(f"openai:{server.url}")
    codes = [GOOD, GOOD + "#MALFORMED\n", GOOD + "#TRUNCATED\n", GOOD + "#NONSENSE\n"]
    good, malformed, truncated, nonsense = model.predict_batch([context] * 4, codes)
    assert p_values(good) == EXPECTED and p_values(malformed) == EXPECTED
    assert not any(v.parse_failed for v in [*good.checks.values(), *malformed.checks.values()])
    assert good.checks["imports"].reason == "r1"
    assert good.score == pytest.approx(np.prod(EXPECTED) * 0.7)
    # Truncated inside column_refs: the five checks before it survive, the rest are neutral and flagged.
    assert p_values(truncated)[:5] == EXPECTED[:5]
    assert [truncated.checks[c].parse_failed for c in CHECKS] == [False] * 5 + [True] * 3
    assert all(truncated.checks[c].p_pass == 0.5 for c in CHECKS[5:])
    assert all(v.parse_failed and v.p_pass == 0.5 for v in nonsense.checks.values())
    assert model.stats["parse_failed"] == 3 + 8 and model.parse_fail_rate == pytest.approx(11 / 32)
    assert "[unparsed]" in truncated.feedback
    # The request: served model discovered, greedy, JSON-schema constrained to all eight checks.
    req = server.requests[0]
    assert req["model"] == "tiny-judge" and req["temperature"] == 0.0
    schema = req["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == {*CHECKS, "quality"}
    assert "data/train.csv" in req["messages"][-1]["content"]


def test_predictions_are_cached_by_task_and_code(server, context):
    model = LLMCheckWorldModel(OpenAIBackend(server.url, model="tiny-judge"))
    first = model.predict(context, GOOD)
    again = model.predict(context, GOOD)
    assert len(server.requests) == 1 and p_values(again) == p_values(first)
    model.predict({**context, "task_id": "other"}, GOOD)
    model.predict(context, GOOD + "\n")
    assert len(server.requests) == 3
    assert model.stats == {"predictions": 4, "cache_hits": 1, "checks": 24, "parse_failed": 0}


def test_vllm_extra_body_mode(server, context):
    model = LLMCheckWorldModel(OpenAIBackend(server.url, model="m", structured="vllm"))
    model.predict(context, GOOD)
    assert server.requests[0]["structured_outputs"]["json"]["required"][: len(CHECKS)] == list(CHECKS)


def test_unreachable_server_is_a_clear_error():
    with pytest.raises(ValueError, match="vllm serve"):
        OpenAIBackend("http://127.0.0.1:9/v1", timeout_s=2)


@pytest.mark.parametrize("spec", ["gpt", "openai:", "static:x", "hf"])
def test_bad_spec_names_the_valid_ones(spec):
    with pytest.raises(ValueError, match="openai:URL"):
        make_world_model(spec)


def test_transformers_logprob_verdicts_with_a_tiny_qwen3(tiny_llm_path, context):
    model = make_world_model(f"hf:{tiny_llm_path}")
    codes = [GOOD, "print('hi')\n", GOOD.replace("model.fit", "modle.fit")]
    preds = model.predict_batch([context] * 3, codes)
    for p in preds:
        assert list(p.checks) == list(CHECKS)
        assert all(0.0 < v.p_pass < 1.0 and not v.parse_failed for v in p.checks.values())
        assert 0.0 <= p.score <= 1.0 and p.cost_s > 0
    # Different prompts give different verdicts (the model reads them), and batching with left
    # padding gives what one-at-a-time forwards give.
    assert len({tuple(p_values(p)) for p in preds}) == 3
    single = make_world_model(f"hf:{tiny_llm_path}")
    for code, p in zip(codes, preds):
        np.testing.assert_allclose(p_values(single.predict(context, code)), p_values(p), atol=1e-4)
