"""Tasks from a user's benchmark folder (MLE-Dojo, MLE-bench or DSBench), one at a time.

``layouts.find_tasks`` says where each task's files are; this module turns each into a
:class:`Task`, and a task that cannot be loaded or graded is reported with the reason instead of
stopping the others. How a task is graded, first rule that applies:

1. ``metrics={task: name}`` from the caller: that built-in metric.
2. DSBench: the task's own ``evaluation/<name>_eval.py`` (``graders.DSBenchScript``), rows compared
   by position as DSBench does (``alignment="id"`` to match ids first); RPG's ``b`` and ``g`` from
   ``save_performance/{baseline,GT}`` when present.
3. MLE-bench: the competition's grade function from an mle-bench checkout (``mlebench=PATH`` or
   ``$MLEBENCH_HOME``, with a checkout's layout; ``mlebench_graders.MLEBenchCheckout``), else
   wmrl's copy of its ``grade.py`` rules where there is one (``mlebench_rules.RULES``: every
   competition at 783b15a), scores rounded to 5 places as mle-bench reports them; other MLE-bench
   competitions fall through to the rules below (the registry stands in for mle-bench: ``wmrl
   tasks`` says so). Answers in JSON lines (tensorflow2-question-answering) are read by
   mle-bench's grade functions only: with any other grader the task is not gradable, with why.
4. MLE-Dojo and MLE-bench with an MLE-Dojo checkout (``mledojo=PATH`` or ``$MLEDOJO_HOME``,
   with a checkout's layout; an importable ``mledojo`` is never one): the competition's own metric class
   (``graders.MLEDojoMetric``).
5. wmrl's registry of the MLE-Dojo competitions (``registry.py``).
6. A ``metric.txt`` in the task's folder, or the metric a scoring script computes (read, never run).
"""

from __future__ import annotations

import ast
import shutil
import tempfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wmrl_envs.mle.graders import DSBenchScript, MLEDojoMetric, RegistryScore, checkout_root
from wmrl_envs.mle.layouts import TaskSource, find_tasks, zipped_csvs
from wmrl_envs.mle.metrics import METRICS, Metric, get_metric
from wmrl_envs.mle.mlebench_graders import MLEBenchCheckout, MLEBenchRules
from wmrl_envs.mle.mlebench_graders import checkout_root as mlebench_root
from wmrl_envs.mle.mlebench_rules import RULES as MLEBENCH_RULES
from wmrl_envs.mle.registry import load_registry
from wmrl_envs.mle.task import Task, answers_are_json_lines

MAX_EXTRACTED_BYTES = 4 << 30  # a zipped public CSV larger than this once extracted is refused
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
    """Name of the metric a scoring script seems to compute, from the identifiers it uses.

    A guess (scripts import functions they never call): used only to name a metric whose
    score comes from the script itself, never to grade.
    """
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


def load_external(
    path: str | Path,
    work_root: Path,
    *,
    task_ids: list[str] | None = None,
    metrics: dict | None = None,
    mledojo: str | Path | None = None,
    alignment: str | None = None,
    mlebench: str | Path | None = None,
) -> tuple[dict[str, Task], dict[str, str]]:
    """``(tasks, problems)`` of the folder ``path``: the tasks that load, and why the others do not.

    ``task_ids`` filters before anything is read; an unknown id is a ``ValueError`` listing the
    valid ones. Each problem is also issued as a warning.
    """
    if alignment not in (None, "position", "id"):
        raise ValueError(f"alignment must be 'position' or 'id', got {alignment!r}")
    sources = {s.id: s for s in find_tasks(path)}
    if task_ids:
        unknown = [t for t in task_ids if t not in sources]
        if unknown:
            raise ValueError(f"unknown task id(s) {unknown} in {path}; valid ids: {', '.join(sources)}")
        sources = {t: sources[t] for t in task_ids}
    checkouts = _Checkouts(checkout_root(mledojo), mlebench_root(mlebench))
    tasks, problems = {}, {}
    for task_id, src in sources.items():
        try:
            tasks[task_id] = _task(src, work_root / task_id, metrics or {}, checkouts, alignment)
        except (ValueError, OSError, KeyError) as e:
            problems[task_id] = str(e)
            warnings.warn(f"task {task_id} skipped: {e}", RuntimeWarning, stacklevel=2)
    return tasks, problems


@dataclass(frozen=True)
class _Checkouts:
    """The benchmark checkouts the user named (None: not named)."""

    mledojo: Path | None
    mlebench: Path | None


def _task(src: TaskSource, work: Path, metrics: dict, checkouts: _Checkouts, alignment: str | None) -> Task:
    if src.sample is None:
        raise ValueError(
            f"no sample submission in {src.public} (looked for sample_submission.csv, Kaggle's names and "
            "*sample*/*submission* CSVs, plain or zipped)"
        )
    if not src.answers.is_file():
        raise ValueError(f"the answers file {src.answers} is missing")
    columns = list(pd.read_csv(src.sample, nrows=0).columns)
    if len(columns) < 2:
        raise ValueError(f"{src.sample} needs an id and a prediction column")
    metric, grader, refs = _grading(src, metrics, checkouts, alignment or "position", columns[0])
    sample_name = src.sample.relative_to(src.public).as_posix()
    return Task(
        id=src.id,
        name=src.id,
        description=src.description.read_text(errors="replace") if src.description else f"Competition {src.id}.",
        metric=metric,
        public_dir=_public_view(src.public, work),
        answers_path=src.answers,
        id_column=columns[0],
        task_type=_task_type(metric, columns[1:], src.answers),
        target=columns[1] if len(columns) == 2 else None,
        suite=src.layout,
        board_paths=src.boards,
        work_dir=work,
        sample_name=sample_name.removesuffix(".zip"),  # a zipped sample is extracted in the view
        grader=grader,
        reference_scores=refs,
        alignment=(alignment or "position") if isinstance(grader, DSBenchScript) else None,
        gold_path=src.gold,
    )


def _grading(src: TaskSource, metrics: dict, checkouts: _Checkouts, align: str, id_column: str):
    """``(metric, grader or None, reference scores)`` of ``src`` (see the module docstring)."""
    if src.id in metrics:
        _csv_answers(src, "a built-in metric")
        return get_metric(metrics[src.id]), None, {}
    if src.layout == "dsbench" and src.eval_script is not None:
        refs = {k: _result(p) for k, p in (("baseline", src.baseline_result), ("perfect", src.perfect_result)) if p}
        guess = metric_from_script(src.eval_script.read_text(errors="replace"))
        if len(refs) == 2:  # the benchmark's own perfect and baseline results say the direction
            higher = refs["perfect"] > refs["baseline"]
        else:
            higher = METRICS[guess].higher_is_better if guess in METRICS else True
        title = f"the score of DSBench's {src.eval_script.name}" + (
            f" (it looks like {guess})" if guess else (" (its direction is a guess)" if len(refs) < 2 else "")
        )
        metric = _named_metric(guess, higher, title)
        return metric, DSBenchScript(src.eval_script, src.answers, src.id, align, id_column), refs
    if src.layout == "mle-bench" and (checkouts.mlebench is not None or src.id in MLEBENCH_RULES):
        return _mlebench_grading(src, checkouts.mlebench)
    _csv_answers(src, "MLE-Dojo's metrics and wmrl's registry")
    checkout = checkouts.mledojo
    if checkout is not None and src.layout in ("mle-dojo", "mle-bench"):
        grader = MLEDojoMetric(checkout, src.id, src.answers)
        title = f"MLE-Dojo's {type(grader.metric).__name__}"
        return _named_metric(None, grader.higher_is_better, title), grader, {}
    entry = load_registry().get(src.id)
    if entry is not None and entry.gradable:
        scorer = RegistryScore(entry, src.answers)
        return scorer.metric, scorer, {}
    name_file = src.public.parent / "metric.txt"
    if name_file.is_file():
        return get_metric(name_file.read_text().strip()), None, {}
    why = f"{entry.reason}" if entry is not None else "not an MLE-Dojo competition known to wmrl's registry"
    raise ValueError(f"not gradable: {why}; pass metrics={{{src.id!r}: NAME}} or an MLE-Dojo checkout")


def _csv_answers(src: TaskSource, grader: str) -> None:
    """Refuse answers in JSON lines, which only mle-bench's grade functions read, for ``grader``."""
    if answers_are_json_lines(src.answers):
        raise ValueError(
            f"not gradable: the answers {src.answers.name} are JSON lines, which only mle-bench's grade "
            f"functions read (wmrl's rules where it has them, else an mle-bench checkout), not {grader}"
        )


def _mlebench_grading(src: TaskSource, checkout: Path | None):
    """An MLE-bench competition graded by mle-bench's grade function (a checkout's, else wmrl's copy
    of its rules); the direction is the rules' where known, else the leaderboard's order."""
    rule = MLEBENCH_RULES.get(src.id)
    if checkout is not None:
        grader = MLEBenchCheckout(checkout, src.id, src.answers)
        higher = rule.higher_is_better if rule else _board_direction(src)
        title = f"mle-bench's {src.id} grade function (score rounded to 5 places)"
        return _named_metric(rule.metric if rule else None, higher, title), grader, {}
    if rule is None:
        raise ValueError(f"{src.id}: no mle-bench checkout and not in MLEBENCH_RULES; pass an mle-bench checkout")
    title = f"mle-bench's {src.id} grade.py rules (score rounded to 5 places)"
    return _named_metric(rule.metric, rule.higher_is_better, title), MLEBenchRules(src.id, src.answers), {}


def _board_direction(src: TaskSource) -> bool:
    """Higher is better unless the leaderboard's first score is below its last (mle-bench's rule)."""
    if not src.boards:
        return True
    scores = pd.read_csv(src.boards[0], usecols=["score"])["score"].dropna()
    return not (len(scores) > 1 and scores.iloc[0] < scores.iloc[-1])


def _named_metric(guess: str | None, higher: bool, title: str) -> Metric:
    """The metric shown to the agent when the benchmark's own code computes the score."""
    base = METRICS.get(guess) if guess else None
    kind = base.kind if base else "value"
    return Metric(guess or "score", _never, higher, kind, title, base.nonnegative if base else False)


def _never(y_true, y_pred) -> float:
    raise RuntimeError("this task is graded by its benchmark's own code")


def _result(path: Path) -> float:
    text = path.read_text().strip()
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{path} holds no number ({text[:40]!r})") from None


def _task_type(metric: Metric, prediction_columns: list[str], answers: Path) -> str:
    if metric.kind == "value":
        return "regression"
    if answers_are_json_lines(answers):  # each row one answer of many (a span, YES, NO, none); no label column
        return "multiclass"
    if len(prediction_columns) > 2 or (metric.kind == "proba" and len(prediction_columns) == 2):
        return "multiclass"
    if metric.kind == "label":
        head = list(pd.read_csv(answers, nrows=0).columns)
        # the answers may name the label otherwise (quora: submission `prediction`, answers `target`)
        column = prediction_columns[0] if prediction_columns[0] in head else head[min(1, len(head) - 1)]
        n = pd.read_csv(answers, usecols=[column]).iloc[:, 0].nunique()
        return "binary" if n <= 2 else "multiclass"
    return "binary"


def _public_view(public: Path, work: Path) -> Path:
    """``public`` itself, or a view of it in ``work`` (every file hard-linked or copied) when a file
    there is a link leaving it (which the sandbox, binding ``public`` alone, could not follow), or
    when it ships CSVs zipped (``layouts.zipped_csvs``): the view then also holds each one
    extracted beside its zip, so the schema, the sample and the validation split read it."""
    root = public.resolve()
    escaping = [
        p for p in public.rglob("*") if p.is_symlink() and not p.resolve().is_relative_to(root)
    ]
    zipped = zipped_csvs(public)
    if not escaping and not zipped:
        return public
    from wmrl_envs.mle.build import link_tree

    view = work / "public-view"
    if not view.is_dir():
        work.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".public-view-", dir=work))  # one per loader: envs may load at once
        try:
            tmp.chmod(0o755)  # mkdtemp's 0700 would hide data/ from a sandbox running as another user
            link_tree(public, tmp)
            for path in zipped:
                _extract_csv(path, tmp / path.with_suffix("").name)
            tmp.rename(view)
        except OSError:
            if not view.is_dir():  # not another loader's view made meanwhile
                raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return view


def _extract_csv(archive: Path, dest: Path) -> None:
    """The one CSV member of ``archive`` written to ``dest``; ``ValueError`` for another archive
    (several members, no CSV, over ``MAX_EXTRACTED_BYTES``)."""
    try:
        with zipfile.ZipFile(archive) as z:
            members = [m for m in z.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
            if len(members) != 1 or not members[0].filename.lower().endswith(".csv"):
                names = [m.filename for m in members][:5]
                raise ValueError(f"{archive} should hold one CSV to extract, it holds {names}")
            if members[0].file_size > MAX_EXTRACTED_BYTES:
                raise ValueError(f"{archive} holds {members[0].file_size} bytes, over {MAX_EXTRACTED_BYTES}")
            with z.open(members[0]) as src, dest.open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
    except zipfile.BadZipFile as e:
        raise ValueError(f"{archive} is not a readable zip ({e})") from None
