"""`wmrl tasks` and `wmrl run-code` through the real command-line entry point."""

from __future__ import annotations

import json

from wmrl_envs.cli import main


def test_tasks_lists_splits_and_suites(capsys):
    assert main(["tasks", "--split", "heldout"]) == 0
    out = capsys.readouterr().out
    assert "penguins" in out and "telco-churn" not in out and "7 task(s)" in out
    assert main(["tasks", "--suite", "dsbench"]) == 0
    assert "titanic" in capsys.readouterr().out


def test_run_code_prints_the_graded_run(tmp_path, capsys, monkeypatch, cache_root):
    monkeypatch.setenv("WMRL_CACHE_DIR", str(cache_root))
    program = tmp_path / "copy.py"
    program.write_text(
        "import shutil\nshutil.copy('data/sample_submission.csv', 'submission.csv')\n"
    )
    assert main(["run-code", str(program), "--task", "penguins"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "ok" and out["timed_out"] is False and out["reward"] == out["percentile"] < 0.3
    assert out["run"]["exit_code"] == 0 and out["run"]["isolation"] == "strong"
    assert main(["run-code", str(program), "--task", "no-such-task"]) == 2
    assert "valid ids: ames-housing" in capsys.readouterr().err
