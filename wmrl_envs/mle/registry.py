"""How to grade each of MLE-Dojo's 202 competitions, without an MLE-Dojo checkout.

The facts (metric, direction, id and prediction columns, parameters, modality) are read from
MLE-Dojo's metric files once and shipped in ``wmrl_envs/assets/mledojo_metrics.yaml``, whose
header documents every field; the metrics themselves are :mod:`wmrl_envs.mle.metrics`.
:func:`load_registry` validates the file; :func:`metric_for` gives a competition's metric, or the
reason it cannot be graded; :meth:`RegistryEntry.score` grades answer and submission frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from wmrl_envs.mle.grading import canonical
from wmrl_envs.mle.metrics import Metric, get_metric

REGISTRY_PATH = Path(__file__).resolve().parent.parent / "assets" / "mledojo_metrics.yaml"
KINDS = ("tabular", "text", "image", "audio", "other")

Columns = tuple[str, ...]


@dataclass(frozen=True)
class RegistryEntry:
    """One competition's grading facts (see the YAML header for each field)."""

    name: str
    kind: str
    higher_is_better: bool
    id_column: str | int | Columns  # int: position in the answers (always 0)
    answer_columns: Columns | None  # None: every answer column but the id
    metric: str | None = None
    params: dict[str, object] = field(default_factory=dict)
    submission_columns: Columns | None = None  # None: the answer columns
    extra_columns: dict[str, str | Columns] = field(default_factory=dict)
    align: str = "id"  # "position": MLE-Dojo compares rows in file order
    submission_rows: str = "one"  # "ranked": several rows per id, best first
    drop_missing_answers: bool = False
    keep_rows_above: dict[str, float] = field(default_factory=dict)
    gradable: bool = True
    reason: str | None = None
    note: str | None = None

    def resolve(self) -> Metric:
        """The metric with this competition's parameters and direction; ``ValueError`` (with
        the reason) when it cannot be graded."""
        if not self.gradable:
            raise ValueError(f"{self.name} cannot be graded: {self.reason}")
        metric = get_metric(self.metric).with_params(**self.params)
        if metric.higher_is_better != self.higher_is_better:
            metric = replace(metric, higher_is_better=self.higher_is_better)
        return metric

    def score(self, answers: pd.DataFrame, submission: pd.DataFrame) -> float:
        """Grade ``submission`` against ``answers`` (both as read from their CSV files).

        Rows are matched by id (as text, ``1.0`` == ``1``); every scored answer id needs exactly
        one submission row (``ranked``: one or more), and rows of other ids are ignored.
        """
        metric = self.resolve()
        answers = self._scored_rows(answers)
        answer_columns = self._answer_columns(answers)
        if self.submission_rows == "ranked":
            submission = self._join_ranked(submission, answer_columns)
        ids = self._ids(submission)
        if ids.has_duplicates:
            raise ValueError(
                f"{self.name}: duplicated ids in the submission, e.g. {ids[ids.duplicated()][0]!r}"
            )
        order = ids.get_indexer(self._ids(answers))
        if (order < 0).any():
            raise ValueError(
                f"{self.name}: {int((order < 0).sum())} answer id(s) have no submission row"
            )
        predicted = submission.iloc[order]
        needs = [_values(answers, self.extra_columns[name]) for name in metric.needs]
        return metric(
            _values(answers, answer_columns),
            _values(predicted, self.submission_columns or answer_columns),
            *needs,
        )

    def _id_names(self, frame: pd.DataFrame) -> list[str]:
        if isinstance(self.id_column, int):
            return [frame.columns[self.id_column]]
        return [self.id_column] if isinstance(self.id_column, str) else list(self.id_column)

    def _ids(self, frame: pd.DataFrame) -> pd.Index:
        parts = [canonical(frame[c]) for c in self._id_names(frame)]
        return pd.Index(["\x1f".join(p) for p in zip(*parts)] if len(parts) > 1 else parts[0])

    def _answer_columns(self, answers: pd.DataFrame) -> Columns:
        if self.answer_columns is not None:
            return self.answer_columns
        ids = set(self._id_names(answers))
        return tuple(c for c in answers.columns if c not in ids)

    def _scored_rows(self, answers: pd.DataFrame) -> pd.DataFrame:
        if self.drop_missing_answers:
            answers = answers.dropna(subset=list(self._answer_columns(answers)))
        for column, bound in self.keep_rows_above.items():
            answers = answers[answers[column] > bound]
        return answers

    def _join_ranked(self, submission: pd.DataFrame, answer_columns: Columns) -> pd.DataFrame:
        """One row per id, its predictions joined in file order into a space-separated ranking."""
        id_name = self._id_names(submission)[0]
        column = (self.submission_columns or answer_columns)[0]
        ranked = submission.astype({column: str}).groupby(id_name, sort=False)[column]
        return ranked.agg(" ".join).reset_index()


def _values(frame: pd.DataFrame, columns: str | Columns) -> np.ndarray:
    """A named column as a 1-D array; a tuple of columns as (n, k) (one column: 1-D)."""
    if isinstance(columns, str):
        return frame[columns].to_numpy()
    values = frame[list(columns)].to_numpy()
    return values[:, 0] if len(columns) == 1 else values


def _columns(value: object, name: str, key: str) -> Columns:
    if not (isinstance(value, list) and value and all(isinstance(c, str) for c in value)):
        raise ValueError(f"{name}: {key} must be a non-empty list of column names, not {value!r}")
    return tuple(value)


def _entry(name: str, raw: object) -> RegistryEntry:
    """Parse and check one YAML entry; every error names the competition."""
    if not isinstance(raw, dict):
        raise ValueError(f"{name}: expected a mapping of fields, not {raw!r}")
    known = {f.name for f in fields(RegistryEntry)} - {"name"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"{name}: unknown field(s) {unknown}")
    missing = sorted({"kind", "higher_is_better", "id_column", "answer_columns"} - set(raw))
    if missing:
        raise ValueError(f"{name}: missing field(s) {missing}")
    values = dict(raw, name=name)
    if values["answer_columns"] == "all":
        values["answer_columns"] = None
    else:
        values["answer_columns"] = _columns(values["answer_columns"], name, "answer_columns")
    if "submission_columns" in values:
        values["submission_columns"] = _columns(
            values["submission_columns"], name, "submission_columns"
        )
    if isinstance(values["id_column"], list):
        values["id_column"] = _columns(values["id_column"], name, "id_column")
    values["extra_columns"] = {
        k: v if isinstance(v, str) else _columns(v, name, f"extra_columns.{k}")
        for k, v in values.get("extra_columns", {}).items()
    }
    entry = RegistryEntry(**values)
    _check(entry)
    return entry


def _check(entry: RegistryEntry) -> None:
    name = entry.name
    if entry.kind not in KINDS:
        raise ValueError(f"{name}: kind {entry.kind!r} is not one of {KINDS}")
    if not isinstance(entry.higher_is_better, bool):
        raise ValueError(f"{name}: higher_is_better must be true or false")
    if not (entry.id_column == 0 or isinstance(entry.id_column, (str, tuple))):
        raise ValueError(f"{name}: id_column must be a column name, a list of them, or 0")
    if entry.align not in ("id", "position") or entry.submission_rows not in ("one", "ranked"):
        raise ValueError(f"{name}: align must be id|position and submission_rows one|ranked")
    if not entry.gradable:
        if not entry.reason or entry.metric is not None:
            raise ValueError(
                f"{name}: a competition that is not gradable needs a reason and no metric"
            )
        return
    if entry.metric is None:
        raise ValueError(f"{name}: a gradable competition needs a metric")
    try:
        metric = entry.resolve()
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    if set(metric.needs) != set(entry.extra_columns):
        raise ValueError(
            f"{name}: metric {entry.metric} needs extra_columns for {list(metric.needs)}, "
            f"the entry gives {sorted(entry.extra_columns)}"
        )


@cache
def _load(path: Path) -> dict[str, RegistryEntry]:
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping of competition names to entries")
    return {name: _entry(name, entry) for name, entry in raw.items()}


def load_registry(path: Path = REGISTRY_PATH) -> dict[str, RegistryEntry]:
    """Every competition's entry, validated (a bad entry raises a ``ValueError`` naming it)."""
    return dict(_load(Path(path)))


def metric_for(competition: str) -> Metric | str:
    """The competition's metric (parameters and direction set), or ``"<name>: <why it cannot be
    graded>"``."""
    entry = load_registry().get(competition)
    if entry is None:
        return f"{competition}: not an MLE-Dojo competition known to the registry"
    return entry.resolve() if entry.gradable else f"{competition}: {entry.reason}"
