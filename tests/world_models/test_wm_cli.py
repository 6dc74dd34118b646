"""``wmrl predict`` prints a prediction as JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wmrl_envs.cli import main
from wmrl_envs.world_models import CHECKS

from .conftest import GOOD
from .test_wm_failures import Server


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


PROGRAM = 'import pandas as pd\ntrain = pd.read_csv("data/train.csv")\nprint(train.shape)\n'


@pytest.mark.parametrize("task, args", [
    ("penguins", []),  # held out of the offline suite: found under the default --split all
    ("penguins", ["--suite", "offline", "--split", "heldout"]),
    ("titanic", []),  # a DSBench task: the suite is found, WMRL/DSBench-v0 serves it
    ("titanic", ["--suite", "dsbench"]),
])
def test_predict_knows_every_task_of_every_split_and_suite(tmp_path, capsys, task, args):
    prog = tmp_path / "solution.py"
    prog.write_text(PROGRAM)
    assert main(["predict", str(prog), "--task", task, *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task_id"] == task and 0.0 <= out["score"] <= 1.0 and out["failed"] is None


def test_predict_names_the_valid_tasks_of_the_split(tmp_path, capsys):
    prog = tmp_path / "solution.py"
    prog.write_text(PROGRAM)
    assert main(["predict", str(prog), "--task", "penguins", "--suite", "offline", "--split", "train"]) == 2
    err = capsys.readouterr().err
    assert "unknown task id" in err and "telco-churn" in err


def test_a_failed_world_model_is_exit_1_without_a_score(tmp_path, context, capsys):
    prog, ctx = tmp_path / "solution.py", tmp_path / "ctx.json"
    prog.write_text(GOOD)
    ctx.write_text(json.dumps(context))
    server = Server()
    server.mode = "500"
    try:
        with pytest.warns(RuntimeWarning, match="not a reward"):
            code = main(["predict", str(prog), "--context", str(ctx), "--world-model", f"openai:{server.url}#judge"])
    finally:
        server.close()
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert code == 1 and out["score"] is None and "HTTP 500" in out["failed"]
    assert "the world model failed" in captured.err


def test_predict_reads_a_task_of_a_data_folder(tmp_path, capsys):
    from mle.test_external import make_dsbench  # tests/ is on sys.path (rootdir-relative packages)

    folder = make_dsbench(tmp_path / "dsbench")
    prog = tmp_path / "solution.py"
    prog.write_text(PROGRAM)
    assert main(["predict", str(prog), "--task", "churn", "--suite", str(folder)]) == 0
    assert json.loads(capsys.readouterr().out)["task_id"] == "churn"
