"""``wmrl build-leaderboards``: score the reference population and write the committed boards.

Every board holds the task's sample submission and the reference entries that beat it (a real
board has no entry that loses to the sample: its floor is the sample, whose percentile rank is
then 0.5/N). For every task it writes ``leaderboard.csv`` into the task's spec folder and, per suite,
``baselines.json`` and ``BASELINES.md`` with the percentile a default RandomForest and a default
linear model reach on the board (probes that are not on the board themselves).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from wmrl_envs.mle.build import build_suite
from wmrl_envs.mle.leaderboard import Leaderboard, rpg
from wmrl_envs.mle.population import (
    Population,
    default_linear,
    default_random_forest,
    fit_predict,
    grade_output,
    load_data,
)
from wmrl_envs.mle.spec import SUITES, list_specs
from wmrl_envs.mle.suites import spec_task
from wmrl_envs.mle.task import Task

SAMPLE_TEAM = "sample-submission"  # scored as the task's own sample_submission.csv


def build_task_board(
    task: Task, seed: int = 0, progress: tqdm | None = None
) -> tuple[Leaderboard, dict]:
    """The task's board and a summary row with the two probes' scores and percentiles."""
    d = load_data(task)
    pop = Population(d, seed)
    b, g = task.baseline_score, task.perfect_score
    teams, scores = [], []
    for team, thunk in pop.entries():
        score = b if team == SAMPLE_TEAM else grade_output(d, thunk())
        # Like a real board: nobody who submits loses to the sample submission.
        if team == SAMPLE_TEAM or task.metric.better(score, b):
            teams.append(team)
            scores.append(score)
        if progress is not None:
            progress.set_postfix_str(f"{task.id}: {team}")
            progress.update()
    board = Leaderboard.from_scores(scores, task.metric.higher_is_better, teams)
    board = Leaderboard.read(io.StringIO(board.to_csv()), task.metric.higher_is_better)  # as stored
    row = {
        "task": task.id,
        "metric": task.metric.name,
        "higher_is_better": task.metric.higher_is_better,
        "entries": len(board),
        "best": board.score_at(1),
        "median": float(np.median(board.scores)),
        "sample_submission": b,
        "best_team": board.teams[0],
    }
    rpgs: dict[str, float] = {}
    for name, make in (("default_rf", default_random_forest), ("default_linear", default_linear)):
        score = grade_output(d, fit_predict(d, make(d, seed), d.X, d.y, d.X_test))
        row[name] = score
        row[f"{name}_percentile"] = board.percentile(score)
        row[f"{name}_rpg"] = rpgs[name] = rpg(score, b, g)
    row["best_rpg"] = best_rpg = rpg(board.score_at(1), b, g)
    row["best_minus_rf_rpg"] = best_rpg - rpgs["default_rf"]
    return board, row


def build_leaderboards(
    suites: Sequence[str] = ("offline", "dsbench"),
    task_ids: list[str] | None = None,
    seed: int = 0,
    threads: int = 1,
) -> list[dict]:
    """Rebuild the boards of ``suites`` (optionally only ``task_ids``); returns the summary rows."""
    rows = []
    for suite in suites:
        specs = [s for s in list_specs(suite) if not task_ids or s.id in task_ids]
        if not specs:
            continue
        folders = build_suite(specs)
        summary_path = SUITES[suite] / "baselines.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        with threadpool_limits(threads), tqdm(desc=f"leaderboards ({suite})", unit="entry") as bar:
            for spec, folder in zip(specs, folders):
                board, row = build_task_board(spec_task(spec, folder), seed, bar)
                spec.leaderboard_path.write_text(board.to_csv())
                summary[spec.id] = row
                rows.append(row)
        summary = dict(sorted(summary.items()))
        summary_path.write_text(json.dumps(summary, indent=1) + "\n")
        (SUITES[suite] / "BASELINES.md").write_text(
            baselines_markdown(suite, list(summary.values()), seed)
        )
    return rows


def baselines_markdown(suite: str, rows: list[dict], seed: int) -> str:
    """The table of probe percentiles for ``BASELINES.md``."""
    lines = [
        f"# Leaderboard baselines ({suite} suite)",
        "",
        f"Written by `wmrl build-leaderboards --suite {suite} --seed {seed}`. Each board holds the",
        "reference population of `wmrl_envs/mle/population.py`, scored on the hidden test split.",
        "The default RandomForest and default linear model are probes, not board entries; their",
        "percentile is the interpolated share of the board they beat. RPG columns are DSBench's",
        "relative performance gap (0 = sample submission, 1 = perfect).",
        "",
        "| task | metric | board best | default RF | RF pct | default linear | linear pct | best RPG - RF RPG |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['task']} | {r['metric']} | {r['best']:.4g} ({r['best_team']}) | {r['default_rf']:.4g} | "
            f"{r['default_rf_percentile']:.2f} | {r['default_linear']:.4g} | {r['default_linear_percentile']:.2f} | "
            f"{r['best_minus_rf_rpg']:+.3f} |"
        )
    rf = [r["default_rf_percentile"] for r in rows]
    lin = [r["default_linear_percentile"] for r in rows]
    lines += [
        "",
        f"Mean percentile: default RF {np.mean(rf):.2f}, default linear {np.mean(lin):.2f}; "
        f"the board's best beats the default RF on {sum(r['best_minus_rf_rpg'] > 0 for r in rows)} of {len(rows)} tasks.",
        "",
    ]
    return "\n".join(lines)
