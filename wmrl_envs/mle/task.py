"""A ready-to-run task: public files for the sandbox, hidden answers and boards for grading.

Every suite (the embedded offline suites, prepared MLE-Dojo folders, DSBench folders) is turned
into :class:`Task` objects; the env only ever talks to this class.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from wmrl_envs.mle.grading import Answers, grade, read_csv_text, submission_cap
from wmrl_envs.mle.leaderboard import Leaderboard
from wmrl_envs.mle.metrics import Metric
from wmrl_envs.world_models.base import FileSchema, TaskContext

DEFAULT_LIMITS = {"wall_s": 60.0, "cpu_s": 60.0, "memory_mb": 2048}
_FULL_READ_BYTES = 32 << 20  # larger data files are sampled for the schema


def file_schema(path: Path) -> FileSchema:
    """Rows, column dtypes and NaN fractions of a CSV (the first 20k rows of large files)."""
    big = path.stat().st_size > _FULL_READ_BYTES
    df = pd.read_csv(path, nrows=20_000 if big else None, low_memory=False)
    if big:
        with path.open("rb") as f:
            n_rows = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1
    else:
        n_rows = len(df)
    return FileSchema(
        n_rows=int(n_rows),
        columns={c: str(t) for c, t in df.dtypes.items()},
        nan_fraction={c: round(float(v), 4) for c, v in df.isna().mean().items()},
    )


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
    valid_fraction: float = 0.2  # share of train.csv held out for non-final turns
    split_seed: int = 42

    @cached_property
    def sample_bytes(self) -> bytes:
        return (self.public_dir / "sample_submission.csv").read_bytes()

    @cached_property
    def sample(self) -> pd.DataFrame:
        return read_csv_text(self.sample_bytes, "sample_submission.csv")

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

    def grade(self, data: bytes | None, refused: str | None = None) -> float:
        """Score submission bytes on the private test; raises ``InvalidSubmission``.

        ``refused``: why the sandbox left the file out, if it did (``RunResult.refused``)."""
        return grade(data, self.answers, self.max_submission_bytes, refused)

    @cached_property
    def boards(self) -> list[Leaderboard]:
        return [
            Leaderboard.read(p, self.metric.higher_is_better)
            for p in self.board_paths
            if p.is_file()
        ]

    @cached_property
    def baseline_score(self) -> float:
        """Score of the sample submission (DSBench's ``b``)."""
        return self.grade(self.sample_bytes)

    @cached_property
    def perfect_score(self) -> float:
        """Score of the answers graded against themselves (DSBench's ``g``)."""
        return self.grade(self.answers_path.read_bytes())

    @cached_property
    def files(self) -> dict[str, FileSchema]:
        first = {"train.csv": 0, "test.csv": 1, "sample_submission.csv": 2}
        paths = sorted(self.public_dir.glob("*.csv"), key=lambda p: (first.get(p.name, 3), p.name))
        return {p.name: file_schema(p) for p in paths}

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
