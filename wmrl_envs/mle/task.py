"""A ready-to-run task: public files for the sandbox, hidden answers and boards for grading.

Every suite (the embedded offline suites, prepared MLE-Dojo folders, DSBench folders) is turned
into :class:`Task` objects; the env only ever talks to this class.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from wmrl_envs.mle.blanks import Graded, paid_grade
from wmrl_envs.mle.grading import Answers, check_submission, grade, read_csv_text, submission_cap
from wmrl_envs.mle.leaderboard import Leaderboard
from wmrl_envs.mle.metrics import Metric
from wmrl_envs.sandbox import Limits
from wmrl_envs.world_models.base import FileSchema, TaskContext

# The sandbox limits of a task whose config names none (embedded specs, mle-bench and MLE-Dojo folders).
DEFAULT_LIMITS = {"wall_s": 60.0, "cpu_s": 60.0, "memory_mb": 2048}
_FULL_READ_BYTES = 32 << 20  # larger data files are sampled for the schema


def file_schema(path: Path) -> FileSchema:
    """Rows, column dtypes, NaN fractions and distinct counts of a CSV (the first 20k rows of large
    files); a test file also says, per text column, how many of its values the train file beside it
    (``test`` -> ``train`` in the name) lacks."""
    big = path.stat().st_size > _FULL_READ_BYTES
    df = pd.read_csv(path, nrows=20_000 if big else None, low_memory=False)
    if big:
        with path.open("rb") as f:
            n_rows = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1
    else:
        n_rows = len(df)
    schema = FileSchema(
        n_rows=int(n_rows),
        columns={str(c): str(t) for c, t in df.dtypes.items()},
        nan_fraction={str(c): round(float(v), 4) for c, v in df.isna().mean().items()},
        n_unique={str(c): int(v) for c, v in df.nunique().items()},
    )
    train = path.with_name(path.name.replace("test", "train"))
    if "test" in path.name and train != path and train.is_file() and not big:
        if train.stat().st_size <= _FULL_READ_BYTES:
            text = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
            seen = pd.read_csv(train, usecols=lambda c: c in text, low_memory=False)
            schema["unseen_in_test"] = {c: int(len(set(df[c].dropna()) - set(seen[c].dropna())))
                                        for c in text if c in seen.columns}
    return schema


def answers_are_json_lines(path: Path) -> bool:
    """Whether ``path`` holds answers as JSON lines, one record per example (mle-bench's
    tensorflow2-question-answering: ``test.jsonl``, two submission rows per record). Only
    mle-bench's grade functions read them: the submission's row count is then the sample's, the
    perfect submission the gold one, and no validation split or built-in metric applies."""
    return path.suffix == ".jsonl"


class Grader(Protocol):
    """A benchmark's own grader (graders.py): ``(bytes, parsed frame) -> score``."""

    def __call__(self, data: bytes, frame: pd.DataFrame, /) -> float: ...

    def with_answers(self, answers: Path, /) -> Grader: ...


@dataclass
class Task:
    """One competition: where its files are, how it is graded, and its leaderboards."""

    id: str
    name: str
    description: str
    metric: Metric
    public_dir: Path
    answers_path: Path
    id_column: str
    task_type: str  # "binary" | "multiclass" | "regression"
    target: str | None = None
    split: str = "all"
    suite: str = "offline"
    license: str | None = None
    limits: dict = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    board_paths: tuple[Path, ...] = ()
    work_dir: Path | None = None  # where derived files (the validation split) are written
    valid_fraction: float = 0.2  # share of the train file held out for non-final turns
    split_seed: int = 42
    sample_name: str = "sample_submission.csv"  # the sample's file name in public_dir
    # The benchmark's own grader, ``(bytes, parsed frame) -> score``, where it has one
    # (graders.py); None: the built-in metric against ``answers``.
    grader: Grader | None = None
    reference_scores: dict[str, float] = field(default_factory=dict)  # "baseline", "perfect" given by the benchmark
    alignment: str | None = None  # how the grader matches rows: "position" or "id" (DSBench folders)
    gold_path: Path | None = None  # mle-bench's gold submission: the perfect one where the answers are JSON lines

    def run_limits(self, overrides: dict | None = None) -> Limits:
        """The sandbox limits of this task's runs, with ``overrides`` (a dict of ``Limits`` fields)."""
        merged = {**self.limits, **(overrides or {})}
        values: dict[str, Any] = {k: (int(v) if k.endswith("_mb") else float(v)) for k, v in merged.items()}
        return Limits(**values)

    @cached_property
    def sample_bytes(self) -> bytes:
        return (self.public_dir / self.sample_name).read_bytes()

    @cached_property
    def sample(self) -> pd.DataFrame:
        return read_csv_text(self.sample_bytes, self.sample_name)

    @cached_property
    def train_file(self) -> str | None:
        """The public file with the training rows (``train.csv`` or the one named like it)."""
        return self._data_file("train")

    @cached_property
    def test_file(self) -> str | None:
        """The public file with the rows to predict (``test.csv`` or the one named like it)."""
        return self._data_file("test")

    def _data_file(self, word: str) -> str | None:
        if (self.public_dir / f"{word}.csv").is_file():
            return f"{word}.csv"
        named = [n for n in self.files if word in Path(n).name.lower() and n != self.sample_name]
        return named[0] if len(named) == 1 else None

    @property
    def submission_columns(self) -> list[str]:
        return list(self.sample.columns)

    @property
    def prediction_columns(self) -> list[str]:
        return [c for c in self.submission_columns if c != self.id_column]

    @property
    def max_submission_bytes(self) -> int:
        """Submissions far larger than the sample are refused before parsing."""
        return submission_cap(self.sample_bytes)

    @cached_property
    def answers(self) -> Answers:
        if not self.answers_path.is_file():
            raise ValueError(f"task {self.id}: answers file {self.answers_path} is missing")
        df = pd.read_csv(self.answers_path, dtype=str)
        try:
            return Answers.from_frame(df, self.id_column, self.metric, self.prediction_columns)
        except (ValueError, KeyError) as e:
            raise ValueError(
                f"task {self.id}: cannot read answers {self.answers_path}: {e}"
            ) from None

    @cached_property
    def answer_rows(self) -> int:
        """The rows a submission should have: the answers', or the sample's for JSON-lines answers."""
        if answers_are_json_lines(self.answers_path):
            return len(self.sample)
        with self.answers_path.open("rb") as f:
            return max(0, len(pd.read_csv(f, usecols=[0], dtype=str)))

    def grade(self, data: bytes | None, refused: str | None = None) -> float:
        """Score submission bytes on the private test; raises ``InvalidSubmission``.

        ``refused``: why the sandbox left the file out, if it did (``RunResult.refused``)."""
        if self.grader is None:
            return grade(data, self.answers, self.max_submission_bytes, refused)
        expected = self.submission_columns
        as_pandas = getattr(self.grader, "reads_as_pandas", False)
        frame = check_submission(data, expected, self.answer_rows, self.max_submission_bytes, refused, as_pandas)
        assert data is not None  # check_submission raised InvalidSubmission on None
        return self.grader(data, frame)

    def grade_paid(self, data: bytes | None, refused: str | None = None) -> Graded:
        """The benchmark's score of submission bytes (as :meth:`grade`) and the score the env pays
        on, which differs only for blank predictions (``blanks.py``); raises ``InvalidSubmission``."""
        score = self.grade(data, refused)
        assert data is not None  # grade raised InvalidSubmission on None
        return paid_grade(self, data, score)

    @cached_property
    def boards(self) -> list[Leaderboard]:
        read = Leaderboard.read_mlebench if self.suite == "mle-bench" else Leaderboard.read
        return [read(p, self.metric.higher_is_better) for p in self.board_paths if p.is_file()]

    @cached_property
    def baseline_score(self) -> float:
        """DSBench's ``b``: the benchmark's baseline result, else the sample submission's score."""
        if "baseline" in self.reference_scores:
            return self.reference_scores["baseline"]
        return self.grade(self.sample_bytes)

    @cached_property
    def perfect_score(self) -> float:
        """DSBench's ``g``: the benchmark's GT result, else the answers (their submission columns)
        graded against themselves, or mle-bench's gold submission for JSON-lines answers."""
        if "perfect" in self.reference_scores:
            return self.reference_scores["perfect"]
        if answers_are_json_lines(self.answers_path):
            if self.gold_path is None or not self.gold_path.is_file():
                raise ValueError(f"task {self.id}: its answers are JSON lines and it has no gold submission to score")
            return self.grade(self.gold_path.read_bytes())
        answers = pd.read_csv(self.answers_path, dtype=str, keep_default_na=False)
        if all(c in answers.columns for c in self.submission_columns):
            answers = answers[self.submission_columns]
        return self.grade(answers.to_csv(index=False).encode())

    @cached_property
    def rpg_reference(self) -> tuple[float, float] | None:
        """``(b, g)`` of DSBench's relative performance gap, or None where either cannot be scored."""
        try:
            return self.baseline_score, self.perfect_score
        except ValueError:  # InvalidSubmission included: e.g. answers in another format than submissions
            return None

    @cached_property
    def files(self) -> dict[str, FileSchema]:
        """Schema of every CSV the program can read, by its path under ``data/``."""
        first = {"train.csv": 0, "test.csv": 1, self.sample_name: 2}
        paths = [p for p in self.public_dir.rglob("*.csv") if p.is_file()]
        names = sorted((p.relative_to(self.public_dir).as_posix() for p in paths), key=lambda n: (first.get(n, 3), n))
        return {n: file_schema(self.public_dir / n) for n in names}

    def context(self, max_turns: int = 1) -> TaskContext:
        """What a world model is told about the task (JSON-serializable)."""
        return TaskContext(
            task_id=self.id,
            description=self.description,
            task_type=self.task_type,
            metric=self.metric.name,
            higher_is_better=self.metric.higher_is_better,
            target=self.target or ",".join(self.prediction_columns),
            id_column=self.id_column,
            files=copy.deepcopy(self.files),
            submission_columns=self.submission_columns,
            limits={k: float(v) for k, v in self.limits.items()},
            max_turns=max_turns,
        )
