"""Graders that are a benchmark's own code: DSBench's evaluation scripts and MLE-Dojo's metric classes.

Both get a submission that already passed :func:`grading.check_submission` (size, encoding,
header, rows), so the benchmark's code never meets a hostile file that could hang or flood it.

- :class:`DSBenchScript` runs ``evaluation/<name>_eval.py`` exactly as DSBench does
  (``--answer_file --predict_file --path --name``, then reads ``<path>/<name>/result.txt``), as a
  subprocess under a CPU and wall-clock limit. DSBench's scripts compare rows by position; with
  ``align="id"`` the submission's rows are first put in the answers' id order.
- :class:`MLEDojoMetric` grades with the competition's ``CompetitionMetrics`` subclass from a
  user's MLE-Dojo checkout: ``validate_submission(sub, gt)`` then ``evaluate(gt, sub)``.

- :class:`RegistryScore` grades an MLE-Dojo competition by wmrl's registry of its metric and
  column rules (``registry.py``) when no checkout is given.

Any failure of that code becomes :class:`InvalidSubmission` with its message or stderr tail.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import io
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from wmrl_envs.mle.checkouts import CheckoutRule
from wmrl_envs.mle.grading import InvalidSubmission
from wmrl_envs.mle.registry import RegistryEntry

SCRIPT_TIMEOUT_S = 300.0
_STDERR_TAIL = 600


@functools.lru_cache(maxsize=64)
def _answers(path: Path) -> pd.DataFrame:
    """A task's answers, read once (callers get a copy: the benchmark's code may change it)."""
    return pd.read_csv(path)


def _first_line(e: Exception) -> str:
    return str(e).splitlines()[0][:300] if str(e) else type(e).__name__


def _score(value: Any, where: str) -> float:  # Any: whatever a grader returned; float() is the check
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise InvalidSubmission(f"{where} gave no score ({str(value)[:80]!r})") from None
    if not math.isfinite(score):
        raise InvalidSubmission(f"{where} scored the submission {score}")
    return score


class DSBenchScript:
    """DSBench's ``evaluation/<name>_eval.py`` as the grader of task ``name``.

    Args:
        script: the evaluation script.
        answers: ``answers/<name>/test_answer.csv``.
        name: the task name (the script's ``--name``).
        align: ``"position"`` (DSBench's own comparison) or ``"id"`` (rows put in answer order
            by ``id_column`` first).
        id_column: the id column of submission and answers.
    """

    def __init__(self, script: Path, answers: Path, name: str, align: str, id_column: str) -> None:
        if align not in ("position", "id"):
            raise ValueError(f"alignment must be 'position' or 'id', got {align!r}")
        self.script, self.answers, self.name = script, answers, name
        self.align, self.id_column = align, id_column

    @property
    def reads_as_pandas(self) -> bool:
        """Rows by position: the script reads the file with ``pd.read_csv`` and judges its shape
        (repeated or extra columns, short rows) itself. By id, wmrl's parsed rows are reordered,
        so its own shape checks stay (``grading.check_submission``)."""
        return self.align == "position"

    def with_answers(self, answers: Path) -> DSBenchScript:
        """The same grader against other answers (a validation split)."""
        return DSBenchScript(self.script, answers, self.name, self.align, self.id_column)

    def __call__(self, data: bytes, frame: pd.DataFrame) -> float:
        with tempfile.TemporaryDirectory(prefix="wmrl-dsbench-") as tmp:
            predict = Path(tmp) / "submission.csv"
            predict.write_bytes(self._aligned(data, frame) if self.align == "id" else data)
            (Path(tmp) / "out" / self.name).mkdir(parents=True)
            argv = [sys.executable, str(self.script), "--answer_file", str(self.answers)]
            argv += ["--predict_file", str(predict), "--path", str(Path(tmp) / "out"), "--name", self.name]
            cpu = int(SCRIPT_TIMEOUT_S)
            try:
                p = subprocess.run(
                    ["prlimit", f"--cpu={cpu}:{cpu + 1}", "--core=0", "--", *argv],
                    cwd=tmp,
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=SCRIPT_TIMEOUT_S,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OMP_NUM_THREADS": "1"},
                )
            except subprocess.TimeoutExpired:
                raise InvalidSubmission(f"{self.script.name} did not finish in {SCRIPT_TIMEOUT_S:g} s") from None
            result = Path(tmp) / "out" / self.name / "result.txt"
            if p.returncode != 0 or not result.is_file():
                tail = p.stderr.strip()[-_STDERR_TAIL:] or f"exit code {p.returncode}, no result.txt"
                raise InvalidSubmission(f"DSBench's {self.script.name} failed on the submission: {tail}")
            return _score(result.read_text().strip(), self.script.name)

    def _aligned(self, data: bytes, frame: pd.DataFrame) -> bytes:
        """The submission with its rows in the answers' id order (unknown ids are refused)."""
        ids = pd.read_csv(self.answers, usecols=[self.id_column], dtype=str)[self.id_column].str.strip()
        if self.id_column not in frame.columns:
            raise InvalidSubmission(f"alignment by id needs the column {self.id_column!r} in submission.csv")
        by_id = frame.assign(_key=frame[self.id_column].str.strip()).set_index("_key")
        missing = ids[~ids.isin(by_id.index)]
        if len(missing) or by_id.index.duplicated().any():
            raise InvalidSubmission(f"submission.csv must hold each test id once ({len(missing)} missing)")
        return by_id.loc[pd.Index(ids)].to_csv(index=False).encode()


MLEDOJO_CHECKOUT = CheckoutRule(
    "MLE-Dojo", "MLEDOJO_HOME", ("mledojo/competitions", "mledojo/metrics/base.py"), "mledojo",
    "github.com/MLE-Dojo/MLE-Dojo",
)


def checkout_root(explicit: str | os.PathLike | None) -> Path | None:
    """The MLE-Dojo checkout named by ``explicit``, else by ``$MLEDOJO_HOME``, else None.

    Only a named folder counts, and only if it has a checkout's layout: an importable ``mledojo``
    (a stray folder in the working directory, say) is never taken for one."""
    return MLEDOJO_CHECKOUT.root(explicit)


class MLEDojoMetric:
    """Competition ``name``'s metric class from the MLE-Dojo checkout at ``root``."""

    def __init__(self, root: Path, name: str, answers: Path) -> None:
        path = root / "mledojo" / "competitions" / name / "utils" / "metric.py"
        if not path.is_file():
            raise ValueError(f"the MLE-Dojo checkout {root} has no metric for {name} ({path})")
        self.root, self.name, self.answers = root, name, answers
        self.metric = self._instance(root, name, path)
        self.higher_is_better = bool(getattr(self.metric, "higher_is_better", True))

    def with_answers(self, answers: Path) -> MLEDojoMetric:
        """The same metric against other answers (a validation split)."""
        return MLEDojoMetric(self.root, self.name, answers)

    @staticmethod
    def _instance(root: Path, name: str, path: Path):
        """An instance of the metric class in ``path``, imported against ``root``'s ``mledojo``.

        The checkout is on ``sys.path`` only while it is imported, and its modules are dropped
        afterwards, so that another checkout (or none) is what the next task sees."""
        with MLEDOJO_CHECKOUT.imported(root):
            base = importlib.import_module("mledojo.metrics.base")
            spec = importlib.util.spec_from_file_location(f"wmrl_mledojo_metric_{name}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import MLE-Dojo metric {name!r} from {path}; check the checkout's file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        classes = [
            c
            for c in vars(module).values()
            if inspect.isclass(c) and issubclass(c, base.CompetitionMetrics) and c is not base.CompetitionMetrics
        ]
        if len(classes) != 1:
            raise ValueError(f"{path} defines {len(classes)} CompetitionMetrics classes; expected one")
        return classes[0]()

    def __call__(self, data: bytes, frame: pd.DataFrame) -> float:
        submission = pd.read_csv(io.BytesIO(data))
        truth = _answers(self.answers).copy()
        where = f"MLE-Dojo's {type(self.metric).__name__}"
        try:
            self.metric.validate_submission(submission, truth)
            return _score(self.metric.evaluate(truth, submission), where)
        except InvalidSubmission:
            raise
        except Exception as e:  # the benchmark's own code: any error means "not gradable"
            raise InvalidSubmission(f"{where} refused the submission: {_first_line(e)}") from None


class RegistryScore:
    """Competition ``entry.name`` graded by the registry's metric and column rules."""

    def __init__(self, entry: RegistryEntry, answers: Path) -> None:
        self.entry, self.answers = entry, answers
        self.metric = entry.resolve()

    def with_answers(self, answers: Path) -> RegistryScore:
        """The same rules against other answers (a validation split)."""
        return RegistryScore(self.entry, answers)

    @property
    def id_columns(self) -> tuple[str, ...]:
        """The id column(s) the competition names (empty: its first column, whatever its name)."""
        named = self.entry.id_column
        return (named,) if isinstance(named, str) else named if isinstance(named, tuple) else ()

    def __call__(self, data: bytes, frame: pd.DataFrame) -> float:
        try:
            score = self.entry.score(_answers(self.answers).copy(), pd.read_csv(io.BytesIO(data)))
        except (ValueError, KeyError, TypeError) as e:
            raise InvalidSubmission(f"{self.entry.name}: {_first_line(e)}") from None
        return _score(score, f"{self.entry.metric} of {self.entry.name}")
