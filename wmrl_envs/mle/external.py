"""Loaders for real competition data a user has prepared: MLE-Dojo and DSBench folders.

MLE-Dojo (one competition, or a folder of them)::

    <comp>/public/{description.txt, sample_submission.csv, train.csv, test.csv, ...}
    <comp>/private/{test_answer.csv, public_leaderboard.csv, private_leaderboard.csv}

DSBench data modeling (``data.zip`` unpacked; ``data_resplit`` at the root or under ``data/``)::

    data_resplit/<task>/{train.csv, test.csv, sample_submission.csv}
    answers/<task>/test_answer.csv
    task/<task>.txt
    evaluation/<task>_eval.py          (optional: the metric is read from it)

The metric is found by name, in this order: the ``metrics`` mapping the caller passes
(``{task: name}``), a ``metric.txt`` file in the competition folder, then the metric function an
evaluation script calls (read statically; the script is never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd

from wmrl_envs.mle.metrics import METRICS, Metric, get_metric
from wmrl_envs.mle.task import Task

# (identifier in a scoring script, metric): the first rule whose identifiers all occur wins.
_SCRIPT_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("roc_auc_score",), "roc_auc"),
    (("log_loss",), "log_loss"),
    (("f1_score",), "macro_f1"),
    (("accuracy_score",), "accuracy"),
    (("mean_squared_log_error",), "rmsle"),
    (("root_mean_squared_log_error",), "rmsle"),
    (("rmsle",), "rmsle"),
    (("mean_absolute_error",), "mae"),
    (("r2_score",), "r2"),
    (("root_mean_squared_error",), "rmse"),
    (("mean_squared_error", "sqrt"), "rmse"),
    (("rmse",), "rmse"),
    (("mean_squared_error",), "mse"),
)


def metric_from_script(source: str) -> str | None:
    """Name of the metric a scoring script computes, from the identifiers it uses."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[-1])
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.keyword) and node.arg == "squared":
            names.add("sqrt")  # mean_squared_error(..., squared=False)
    for needed, metric in _SCRIPT_RULES:
        if all(n in names for n in needed):
            return metric
    return None


def resolve_metric(
    task_id: str, metrics: dict | None, name_file: Path, scripts: list[Path]
) -> Metric:
    """The task's metric from the caller's mapping, a ``metric.txt`` file or a scoring script."""
    if metrics and task_id in metrics:
        name, where = metrics[task_id], "the metrics argument"
    elif name_file.is_file():
        name, where = name_file.read_text().strip(), str(name_file)
    else:
        script = next((p for p in scripts if p.is_file()), None)
        name = metric_from_script(script.read_text(errors="replace")) if script else None
        if name is None:
            looked = ", ".join(str(p) for p in [name_file, *scripts])
            raise ValueError(
                f"task {task_id}: no metric found (looked at {looked}); write one of "
                f"{', '.join(METRICS)} to {name_file} or pass metrics={{{task_id!r}: 'rmse'}}"
            )
        where = str(script)
    try:
        return get_metric(name)
    except ValueError as e:
        raise ValueError(f"task {task_id} ({where}): {e}") from None


def _task_type(metric: Metric, prediction_columns: list[str], answers: Path) -> str:
    if metric.kind == "value":
        return "regression"
    if len(prediction_columns) > 2 or (metric.kind == "proba" and len(prediction_columns) == 2):
        return "multiclass"
    if metric.kind == "label":
        n = pd.read_csv(answers, usecols=[prediction_columns[0]]).iloc[:, 0].nunique()
        return "binary" if n <= 2 else "multiclass"
    return "binary"


def _make_task(
    task_id: str,
    suite: str,
    public: Path,
    answers: Path,
    description: Path,
    metric: Metric,
    boards: tuple[Path, ...],
    work_dir: Path,
) -> Task:
    for path in (public / "sample_submission.csv", answers, description):
        if not path.is_file():
            raise ValueError(f"task {task_id}: required file {path} is missing")
    header = (public / "sample_submission.csv").read_text(errors="replace").splitlines()[0]
    columns = [c.strip() for c in header.split(",")]
    if len(columns) < 2:
        raise ValueError(
            f"task {task_id}: {public / 'sample_submission.csv'} needs an id and a prediction column"
        )
    return Task(
        id=task_id,
        name=task_id,
        description=description.read_text(errors="replace"),
        metric=metric,
        public_dir=public,
        answers_path=answers,
        id_column=columns[0],
        task_type=_task_type(metric, columns[1:], answers),
        target=columns[1] if len(columns) == 2 else None,
        suite=suite,
        board_paths=boards,
        work_dir=work_dir,
    )


def load_mledojo(root: Path, work_root: Path, metrics: dict | None = None) -> dict[str, Task]:
    """Tasks of a prepared MLE-Dojo competition folder, or of a folder of them."""
    comps = (
        [root]
        if (root / "public").is_dir()
        else sorted(p for p in root.iterdir() if (p / "public").is_dir())
    )
    tasks = {}
    for comp in comps:
        public, private = comp / "public", comp / "private"
        description = next(
            (p for p in (public / "description.txt", public / "description.md") if p.is_file()),
            public / "description.txt",
        )
        metric = resolve_metric(
            comp.name,
            metrics,
            comp / "metric.txt",
            [comp / "utils" / "metric.py", comp / "metric.py"],
        )
        boards = tuple(
            p
            for p in (private / "private_leaderboard.csv", private / "public_leaderboard.csv")
            if p.is_file()
        )
        tasks[comp.name] = _make_task(
            comp.name,
            "mle-dojo",
            public,
            private / "test_answer.csv",
            description,
            metric,
            boards,
            work_root / comp.name,
        )
    return tasks


def load_dsbench(root: Path, work_root: Path, metrics: dict | None = None) -> dict[str, Task]:
    """Tasks of a DSBench data-modeling folder."""
    base = root if (root / "data_resplit").is_dir() else root / "data"
    scripts_dirs = [root / "evaluation", base / "evaluation"]
    tasks = {}
    for folder in sorted(p for p in (base / "data_resplit").iterdir() if p.is_dir()):
        name = folder.name
        metric = resolve_metric(
            name, metrics, folder / "metric.txt", [d / f"{name}_eval.py" for d in scripts_dirs]
        )
        tasks[name] = _make_task(
            name,
            "dsbench",
            folder,
            base / "answers" / name / "test_answer.csv",
            base / "task" / f"{name}.txt",
            metric,
            (),
            work_root / name,
        )
    return tasks


def is_mledojo(root: Path) -> bool:
    return (root / "public").is_dir() or any(
        (p / "public").is_dir() for p in root.iterdir() if p.is_dir()
    )


def is_dsbench(root: Path) -> bool:
    return (root / "data_resplit").is_dir() or (root / "data" / "data_resplit").is_dir()
