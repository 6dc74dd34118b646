"""``wmrl predict`` prints a prediction as JSON."""

from __future__ import annotations

import json
import subprocess
import sys

from wmrl_envs.cli import main
from wmrl_envs.world_models import CHECKS

from .conftest import GOOD


def test_predict_prints_json(tmp_path, context, capsys):
    prog, ctx = tmp_path / "solution.py", tmp_path / "ctx.json"
    prog.write_text(GOOD.replace("model.fit", "modle.fit"))
    ctx.write_text(json.dumps(context))
    assert main(["predict", str(prog), "--context", str(ctx)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task_id"] == "toy-churn" and set(out["checks"]) == set(CHECKS)
    assert out["checks"]["names"]["p_pass"] < 0.5 and out["score"] < 0.1


def test_bad_world_model_spec_is_a_message_not_a_traceback(tmp_path, context, capsys):
    prog, ctx = tmp_path / "solution.py", tmp_path / "ctx.json"
    prog.write_text(GOOD)
    ctx.write_text(json.dumps(context))
    assert main(["predict", str(prog), "--context", str(ctx), "--world-model", "gpt4"]) == 2
    assert "unknown world model 'gpt4'" in capsys.readouterr().err


def test_importing_world_models_does_not_import_torch():
    code = "import sys, wmrl_envs.world_models; print(sorted({'torch', 'transformers', 'vllm'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_predict_takes_the_context_from_the_env(tmp_path, capsys):
    prog = tmp_path / "solution.py"
    prog.write_text('import pandas as pd\ntrain = pd.read_csv("data/train.csv")\nprint(train["no_such_column"])\n')
    assert main(["predict", str(prog), "--task", "telco-churn"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task_id"] == "telco-churn"
    assert "'no_such_column' is not in train.csv" in out["checks"]["column_refs"]["reason"]
    assert out["checks"]["output_format"]["p_pass"] < 0.5


def test_predict_with_a_local_llm(tmp_path, context, capsys, tiny_llm_path):
    prog, ctx = tmp_path / "solution.py", tmp_path / "ctx.json"
    prog.write_text(GOOD)
    ctx.write_text(json.dumps(context))
    assert main(["predict", str(prog), "--context", str(ctx), "--world-model", f"hf:{tiny_llm_path}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(0 < c["p_pass"] < 1 and not c["parse_failed"] for c in out["checks"].values())
