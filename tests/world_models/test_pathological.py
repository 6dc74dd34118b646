"""Any text as a program: the static and the LLM world model answer with a score in [0, 1] and a
reason, never an exception, in bounded time (a watchdog fails a test that hangs)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wmrl_envs.cli import main
from wmrl_envs.mixing import MixingConfig
from wmrl_envs.world_models import CHECKS, CodeCheckWorldModel, LLMCheckWorldModel
from wmrl_envs.world_models.backends import OpenAIBackend
from wmrl_envs.world_models.screening import MAX_PROGRAM_CHARS, guarded, safe_predict
from wmrl_envs.wrappers import MixedRewardWrapper, WorldModelWrapper

from .conftest import CONTEXT, GOOD
from .test_wm_failures import CodeEnv, Server

NOISE = bytes((i * 151 + 7) % 256 for i in range(4096))  # deterministic "binary" bytes
BAD_TEXT = {
    "latin1_binary": NOISE.decode("latin-1"),
    "replaced_binary": NOISE.decode("utf-8", errors="replace"),
    "surrogates": (b"x = '" + NOISE[:64] + b"'\n").decode("utf-8", errors="surrogateescape"),
    "null_bytes": "import pandas as pd\x00\nx = 1\x00\n",
    "syntax_error": "def f(:\n    return\n",
    "unclosed": GOOD + "print((\n",
    "empty": "",
    "whitespace": " \n\t\n",
    "parens_10k": "x = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n",
    "brackets_10k": "x = " + "[" * 10_000 + "]" * 10_000 + "\n",
    "sum_10k": "x = " + "1 + " * 10_000 + "1\n",
    "sum_600": "x = " + "1 + " * 600 + "1\n",  # parses, but deeper than the recursion limit of a visitor
    "calls_10k": "x = print" + "()" * 10_000 + "\n",
    "attrs_10k": "import pandas as pd\nx = pd" + ".a" * 10_000 + "\n",
    "subscripts_10k": "x = a" + "[0]" * 10_000 + "\n",
    "unary_100k": "x = " + "-" * 100_000 + "1\n",
    "lambdas_1k": "f = " + "lambda: " * 1_000 + "1\n",
    "ifs_300": "".join("    " * i + "if x:\n" for i in range(300)) + "    " * 300 + "pass\n",
    "five_mb": GOOD + "x = 1\n" * 900_000,
}
NOT_TEXT = {"none": None, "int": 5, "bytes": b"print(1)", "list": ["print(1)"], "dict": {"code": GOOD}}
ANY_INPUT = {**BAD_TEXT, **NOT_TEXT}


# A prediction that runs away fails the test after 120 s instead of hanging the suite.
pytestmark = pytest.mark.timeout(120, method="signal")


def assert_prediction(pred) -> None:
    assert pred.failed is None and 0.0 <= pred.score <= 1.0 and pred.feedback.strip()
    assert set(pred.checks) == set(CHECKS)


class Answers:
    """A JSON backend that passes every check and omits quality (so the static prior is asked)."""

    def complete(self, batch, schema):
        return [json.dumps({c: {"verdict": "pass", "confidence": 0.9} for c in CHECKS})] * len(batch)


class LogProbs:
    def p_pass(self, batch, answer_prefix):
        return np.full(len(batch), 0.7)


@pytest.fixture(scope="module")
def static():
    return CodeCheckWorldModel()


@pytest.mark.parametrize("name", list(ANY_INPUT))
def test_static_model_answers_any_input(static, name):
    assert_prediction(safe_predict(static, CONTEXT, ANY_INPUT[name]))


@pytest.mark.parametrize("backend", [Answers(), LogProbs()], ids=["json", "logprob"])
def test_llm_model_answers_any_input(backend):
    model = LLMCheckWorldModel(backend)
    for pred in model.predict_batch([CONTEXT] * len(ANY_INPUT), list(ANY_INPUT.values())):
        assert_prediction(pred)
    assert model.failures == 0


def test_llm_model_sends_odd_text_to_a_real_server():
    server = Server()
    try:
        model = LLMCheckWorldModel(OpenAIBackend(server.url, model="judge", timeout_s=10))
        for name in ("surrogates", "null_bytes", "latin1_binary", "five_mb", "none"):
            assert_prediction(model.predict(CONTEXT, ANY_INPUT[name]))
        assert server.posts == 3  # the too-large program and the non-string never reach the server
    finally:
        server.close()


@pytest.mark.parametrize("name", ["five_mb", "none", "bytes"])
def test_unreadable_input_is_predicted_zero_with_the_reason(static, name):
    pred = safe_predict(static, CONTEXT, ANY_INPUT[name])
    assert pred.score == 0.0
    assert ("program too large" if name == "five_mb" else "not Python source") in pred.checks["syntax"].reason


def test_too_deep_is_predicted_zero_with_the_fix(static):
    pred = safe_predict(static, CONTEXT, ANY_INPUT["sum_10k"])
    assert pred.score == 0.0 and "nested too deeply" in pred.feedback and "flatten" in pred.feedback


def test_guarded_decorates_a_predict_method():
    class Fragile:
        @guarded
        def predict(self, context, action):
            raise RecursionError("maximum recursion depth exceeded")

    assert Fragile().predict(CONTEXT, GOOD).score == 0.0
    assert "too large" in Fragile().predict(CONTEXT, "x" * (MAX_PROGRAM_CHARS + 1)).feedback


@pytest.mark.parametrize("name", ["unary_100k", "none", "surrogates", "five_mb"])
def test_wrappers_pay_a_score_for_any_action(static, name):
    for w in (WorldModelWrapper(CodeEnv(), static), MixedRewardWrapper(CodeEnv(), static, MixingConfig(anchor_rate=1e-9))):
        w.reset(seed=0)
        _, reward, done, _, info = w.step(ANY_INPUT[name])
        assert done and 0.0 <= reward <= 1.0 and info["reward_source"] == "world_model"


@pytest.mark.parametrize("content", [b"\xff\xfeimport pandas\x80\n", b"x = 1\x00\n", ("x = 1\n" * 200_000).encode()],
                         ids=["not_utf8", "null_byte", "1.2_mb"])
def test_predict_cli_reads_any_file(tmp_path, capsys, content):
    prog, ctx = tmp_path / "solution.py", tmp_path / "ctx.json"
    prog.write_bytes(content)
    ctx.write_text(json.dumps(CONTEXT))
    assert main(["predict", str(prog), "--context", str(ctx)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == 0.0 and out["failed"] is None and out["checks"]["syntax"]["p_pass"] < 0.5
    assert out["checks"]["syntax"]["reason"]
