import json
from pathlib import Path

import pytest

from agents.compare import Budget, plot, table
from wmrl_envs.cli import main


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget", "-1"], "--budget must be a positive number"),
        (["--arms", "wmrl"], "arms must include 'real'"),
        (["--arms", "real,magic"], "arms must include 'real'"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, message, capsys):
    assert main(["compare", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_budget_scales_updates():
    assert Budget().scaled(0.5).updates == 10
    assert Budget().scaled(0.01).updates == 1


def test_table_and_plot_from_committed_results(tmp_path):
    results = json.loads((Path(__file__).parents[2] / "docs" / "compare_results.json").read_text())
    text = table(results)
    assert "wmrl-no-debias" in text and "compute_ratio" in text
    plot(results, tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 10_000


def test_compare_refuses_an_unknown_world_model_before_training(capsys):
    assert main(["compare", "--world-model", "oracle", "--quiet"]) == 2
    assert "unknown world model 'oracle'" in capsys.readouterr().err


def test_compare_refuses_contradictory_anchor_rates(capsys):
    assert main(["compare", "--adaptive", "--min-rate", "0.6", "--max-rate", "0.2", "--quiet"]) == 2
    assert "min_rate" in capsys.readouterr().err
    assert main(["compare", "--anchor-rate", "1.5", "--quiet"]) == 2
    assert "anchor_rate" in capsys.readouterr().err
