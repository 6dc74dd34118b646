"""Leaderboard rewards: MLE-Dojo position, interpolated percentile, MLE-bench medals, DSBench RPG."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from wmrl_envs.mle.leaderboard import Leaderboard, rpg
from wmrl_envs.mle.metrics import get_metric
from wmrl_envs.mle.spec import SUITES, list_specs


def test_position_matches_mledojo_formula():
    board = Leaderboard.from_scores([0.9, 0.8, 0.8, 0.7, 0.5], higher_is_better=True)
    assert board.position(0.95) == 1.0  # beats the top
    assert board.position(0.8) == pytest.approx(4 / 5)  # ties the second entry: p = 2
    assert board.position(0.75) == pytest.approx(2 / 5)
    assert board.position(0.4) == 0.0  # loses to everyone


def test_position_for_lower_is_better():
    board = Leaderboard.from_scores([3.0, 1.0, 2.0], higher_is_better=False)
    assert list(board.scores) == [1.0, 2.0, 3.0]
    assert board.position(1.5) == pytest.approx(2 / 3)
    assert board.position(0.5) == 1.0


def test_percentile_interpolates_between_entries():
    board = Leaderboard.from_scores([0.6, 0.7, 0.8, 0.9], higher_is_better=True)
    assert board.percentile(0.5) == 0.0
    assert board.percentile(0.6) == pytest.approx(0.125)  # ties count half: (0 + 0.5) / 4
    assert board.percentile(0.7) == pytest.approx(0.375)
    assert board.percentile(0.75) == pytest.approx(0.5)
    assert board.percentile(0.9) == pytest.approx(0.875)
    assert board.percentile(1.0) == 1.0
    low = Leaderboard.from_scores([1.0, 2.0, 3.0, 4.0], higher_is_better=False)
    assert low.percentile(2.5) == pytest.approx(0.5)
    tied = Leaderboard.from_scores([0.5, 0.5, 0.9, 0.9], higher_is_better=True)
    assert tied.percentile(0.5) == pytest.approx(0.25) and tied.percentile(0.9) == pytest.approx(0.75)


def test_percentile_is_monotone_and_bounded():
    rng = np.random.default_rng(0)
    board = Leaderboard.from_scores(np.round(rng.random(40), 2), higher_is_better=True)
    xs = np.linspace(-0.5, 1.5, 401)
    ps = [board.percentile(x) for x in xs]
    assert all(0.0 <= p <= 1.0 for p in ps)
    assert all(b >= a for a, b in zip(ps, ps[1:]))


def test_medals_follow_mlebench_thresholds():
    board = Leaderboard.from_scores(np.arange(50, 0, -1), higher_is_better=True)  # 50 teams
    # N < 100: gold s(5), silver s(10), bronze s(20)
    assert board.medal(46) == "gold"
    assert board.medal(45.5) == "silver"
    assert board.medal(41) == "silver"
    assert board.medal(31) == "bronze"
    assert board.medal(26) == "above_median"
    assert board.medal(25.5) is None  # the median itself is not strictly beaten
    big = Leaderboard.from_scores(np.arange(2000, 0, -1), higher_is_better=True)
    assert big.medal(big.score_at(14)) == "gold"  # 10 + int(0.002 * 2000) = 14
    assert big.medal(big.score_at(15)) == "silver"


def test_rpg_for_both_directions():
    assert rpg(0.75, baseline=0.5, perfect=1.0) == pytest.approx(0.5)  # AUC
    assert rpg(0.4, baseline=0.5, perfect=1.0) == 0.0
    assert rpg(2.0, baseline=4.0, perfect=0.0) == pytest.approx(0.5)  # RMSE: lower is better
    assert rpg(5.0, baseline=4.0, perfect=0.0) == 0.0
    assert rpg(float("nan"), 0.5, 1.0) == 0.0


def test_board_csv_round_trip_and_column_choice():
    board = Leaderboard.from_scores([0.5, 0.9, 0.7], True, ["c", "a", "b"])
    text = board.to_csv()
    assert text.splitlines()[0] == "rank,team,score"
    again = Leaderboard.read(io.StringIO(text), True)
    assert again.teams == ("a", "b", "c") and list(again.scores) == [0.9, 0.7, 0.5]
    mledojo = Leaderboard.read(io.StringIO("rank,whatever\n1,0.3\n2,0.2\n"), False)  # second column
    assert list(mledojo.scores) == [0.2, 0.3]


@pytest.mark.parametrize("suite", ["offline", "dsbench"])
def test_copying_the_sample_earns_at_most_005_on_every_committed_board(suite):
    """Real boards (MLE-Dojo's: 0.01-0.04) have no entry that loses to the sample submission."""
    summary = json.loads((SUITES[suite] / "baselines.json").read_text())
    for spec in list_specs(suite):
        row = summary[spec.id]
        board = Leaderboard.read(spec.leaderboard_path, row["higher_is_better"])
        metric = get_metric(spec.metric)
        b = row["sample_submission"]  # boards store 10 significant digits
        assert not any(metric.better(b, s) and not np.isclose(b, s, rtol=1e-9) for s in board.scores), spec.id
        assert board.percentile(row["sample_submission"]) <= 0.05, spec.id
