"""How to grade each of MLE-Dojo's 202 competitions, without an MLE-Dojo checkout.

The facts (metric, direction, id and prediction columns, parameters, modality) are read from
MLE-Dojo's metric files once and shipped in ``wmrl_envs/assets/mledojo_metrics.yaml``, whose
header documents every field; the metrics themselves are :mod:`wmrl_envs.mle.metrics`.
:func:`load_registry` validates the file; :func:`metric_for` gives a competition's metric, or the
reason it cannot be graded; :meth:`RegistryEntry.score` grades answer and submission frames.

A submission MLE-Dojo would refuse must not be scored, so :meth:`RegistryEntry.validate` makes
the checks its ``validate_submission`` template makes (row count, ids compared as the text
``pd.read_csv`` gives, the sample's columns exactly), and the scikit-learn refusals of its
``evaluate`` (NaN, non-whole class labels) are refused here too. Where a competition's class
checks otherwise, its entry says so (``id_named``, ``id_by_name``, ``id_first``, ``ids_as``,
``extra_columns_ok``, ``whole_labels``, ``nan_predictions``).
``tests/mle/test_mledojo_differential.py`` compares the two on edge cases of every competition
and lists where they still differ, and why (MLE-Dojo bugs not copied among them; docs/mle.md).

A blank prediction is scored here as MLE-Dojo scores it (``drop`` and ``drop_cells`` leave it out);
what the env *pays* for a file with blanks is decided in ``blanks.py``, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from wmrl_envs.mle.grading import shown
from wmrl_envs.mle.metrics import Metric, get_metric

REGISTRY_PATH = Path(__file__).resolve().parent.parent / "assets" / "mledojo_metrics.yaml"
KINDS = ("tabular", "text", "image", "audio", "other")

Columns = tuple[str, ...]
NAN_RULES = ("sklearn", "refuse", "drop", "drop_cells", "column_fails", "zero", "wrong")


@dataclass(frozen=True)
class RegistryEntry:
    """One competition's grading facts (see the YAML header for each field)."""

    name: str
    kind: str
    higher_is_better: bool
    id_column: str | int | Columns  # int: position in the answers (always 0)
    answer_columns: Columns | None  # None: every answer column but the id
    metric: str | None = None
    id_first: bool = False  # a named id MLE-Dojo still reads as the submission's first column
    params: dict[str, object] = field(default_factory=dict)
    submission_columns: Columns | None = None  # None: the answer columns
    unscored_columns: Columns = ()  # columns the class requires in the submission but never reads
    extra_columns: dict[str, str | Columns] = field(default_factory=dict)
    align: str = "id"  # "position": MLE-Dojo compares rows in file order
    submission_rows: str = "one"  # "ranked": several rows per id, best first
    drop_missing_answers: bool = False
    keep_rows_above: dict[str, float] = field(default_factory=dict)
    nan_predictions: str = "sklearn"  # what MLE-Dojo's class does with a missing prediction
    ids_as: str = "text"  # "value": MLE-Dojo compares ids as read (1.0 is 1)
    id_named: bool = True  # False: the submission's first column is the id, whatever its name
    id_by_name: bool = False  # id_column 0: the answers' first column, found by name in the submission
    extra_columns_ok: bool = False  # True: MLE-Dojo ignores columns it does not read
    whole_labels: bool = True  # False: MLE-Dojo compares labels with ==, non-whole ones too
    probabilities: str | None = None  # "sum_to_one" | "within_0_1": MLE-Dojo refuses others
    gradable: bool = True
    reason: str | None = None
    note: str | None = None
    approximate: str | None = None  # why some differential cases disagree; None: exact

    def resolve(self) -> Metric:
        """The metric with this competition's parameters and direction; ``ValueError`` (with
        the reason) when it cannot be graded."""
        if not self.gradable:
            raise ValueError(f"{self.name} cannot be graded: {self.reason}")
        if self.metric is None:
            raise ValueError(f"{self.name}: metric is None; set metric (a wmrl metric name) in its registry entry")
        metric = get_metric(self.metric).with_params(**self.params)
        if metric.higher_is_better != self.higher_is_better:
            metric = replace(metric, higher_is_better=self.higher_is_better)
        return metric

    def score(self, answers: pd.DataFrame, submission: pd.DataFrame) -> float:
        """Grade ``submission`` against ``answers`` (both as read by ``pd.read_csv``).

        The submission is first checked as MLE-Dojo's ``validate_submission`` checks it
        (:meth:`validate`); rows are then matched by id as text, as MLE-Dojo matches them.
        """
        if self.id_by_name:
            return replace(self, id_column=str(answers.columns[0]), id_by_name=False).score(answers, submission)
        metric = self.resolve()
        submission = self._checked(metric, answers, submission)
        answers = self._scored_rows(answers)
        if self.nan_predictions == "drop":
            answers = answers[self._ids(answers).isin(self._ids(submission))]
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
        truth = _values(answers, answer_columns)
        guess = _values(predicted, self.submission_columns or answer_columns)
        if self.nan_predictions in ("drop_cells", "column_fails") and pd.isna(guess).any():
            failed = self.params.get("single_class_score", 0.0)
            if not isinstance(failed, (int, float)):
                raise ValueError(f"{self.name}: params single_class_score is {failed!r}; set it to a number")
            return _column_mean(metric, truth, guess, needs, failed if self.nan_predictions == "column_fails" else None)
        return metric(truth, guess, *needs)

    def _checked(self, metric: Metric, answers: pd.DataFrame, submission: pd.DataFrame) -> pd.DataFrame:
        """The submission once MLE-Dojo's checks pass, its missing predictions handled by
        ``nan_predictions``; ``ValueError`` where the class refuses it."""
        columns = self.submission_columns or self._answer_columns(answers)
        if self.submission_rows == "ranked":
            self._validate_ranked(answers, submission)
            return self._missing_predictions(metric, submission, columns)
        self.validate(answers, submission)
        submission = self._missing_predictions(metric, submission, columns)
        self._check_probabilities(submission, columns)
        if self.nan_predictions not in ("drop_cells", "column_fails"):
            _check_predictions(metric, submission, columns, self.whole_labels)
        return submission

    def _id_names(self, frame: pd.DataFrame) -> list[str]:
        if isinstance(self.id_column, int):
            return [frame.columns[self.id_column]]
        return [self.id_column] if isinstance(self.id_column, str) else list(self.id_column)

    def validate(self, answers: pd.DataFrame, submission: pd.DataFrame) -> None:
        """MLE-Dojo's checks of a one-row-per-id submission, in its order: one row per answer
        row, the same ids (compared as text: ``1.0`` is not ``1``), and exactly the sample's
        columns (the ids, the prediction columns and any ``unscored_columns``); ``ValueError`` naming
        what is wrong."""
        if len(submission) != len(answers):
            raise ValueError(
                f"Number of rows in submission ({len(submission)}) does not match ground truth "
                f"({len(answers)}); write one row per test id"
            )
        id_names = self._id_names(answers if self.id_named else submission)
        expected = [*id_names, *self._required(answers)]
        _check_missing_columns(submission, expected)
        if self.id_first and list(submission.columns[: len(id_names)]) != id_names:
            raise ValueError(
                f"ID values do not match between submission and ground truth: the first column "
                f"is {submission.columns[0]!r}, and MLE-Dojo reads the first column as the id; "
                f"put {'/'.join(id_names)} first"
            )
        theirs, ours = self._ids(submission), self._ids(answers)
        if not np.array_equal(np.sort(theirs.to_numpy()), np.sort(ours.to_numpy())):
            unknown = theirs[~theirs.isin(ours)]
            raise ValueError(
                f"{'/'.join(id_names)} values do not match between submission and ground truth "
                f"({len(unknown)} unknown, e.g. {shown(unknown)}; {int(theirs.duplicated().sum())} "
                "repeated); write each test id once, as it is written in test.csv"
            )
        if not self.extra_columns_ok:
            _check_extra_columns(submission, expected)

    def _validate_ranked(self, answers: pd.DataFrame, submission: pd.DataFrame) -> None:
        """MLE-Dojo's checks of a ranked submission (several rows per id, best first): exactly
        the id and prediction columns, at most ``k`` (the metric's cutoff) rows per id, and the
        answers' ids (as text), each at least once and no other; ``ValueError`` naming what is
        wrong."""
        expected = [*self._id_names(answers), *self._required(answers)]
        _check_missing_columns(submission, expected)
        _check_extra_columns(submission, expected)
        theirs, ours = self._ids(submission), self._ids(answers)
        counts = theirs.value_counts()
        limit = self.params.get("k")
        if isinstance(limit, int) and (counts > limit).any():
            raise ValueError(
                f"{int((counts > limit).sum())} id(s) have more than {limit} rows, e.g. "
                f"{shown(counts.index[counts > limit])}; write at most {limit} rows (predictions, "
                "best first) per id"
            )
        unknown, missing = theirs[~theirs.isin(ours)], ours[~ours.isin(theirs)]
        wrong = [f"{len(v)} {what}, e.g. {shown(v)}" for what, v in (("missing", missing), ("unknown", unknown)) if len(v)]
        if wrong:
            raise ValueError(
                f"{expected[0]} values do not match the test ids ({'; '.join(wrong)}); write "
                "each test id, as it is written in test.csv, and no other"
            )

    def _check_probabilities(self, submission: pd.DataFrame, columns: Columns) -> None:
        """MLE-Dojo's probability checks: rows summing to one (within 1e-3), or every value in
        [0, 1]; ``ValueError`` naming the first offending row or column."""
        values = submission[list(columns)].apply(pd.to_numeric, errors="coerce")
        if self.probabilities == "sum_to_one":
            sums = values.sum(axis=1).to_numpy()
            if not np.allclose(sums, 1, atol=1e-3):
                row = int(np.argmax(~np.isclose(sums, 1, atol=1e-3)))
                raise ValueError(
                    f"The probabilities of each row must sum to one: row {row + 1} sums to "
                    f"{sums[row]:.6g}; normalise each row"
                )
        elif self.probabilities == "within_0_1":
            for column in columns:
                if ((values[column] < 0) | (values[column] > 1)).any():
                    raise ValueError(
                        f"Probability values for class {column} must be between 0 and 1"
                    )

    def _missing_predictions(
        self, metric: Metric, submission: pd.DataFrame, columns: Columns
    ) -> pd.DataFrame:
        """Apply the competition's ``nan_predictions`` rule to missing predictions (``NaN``, or
        text ``pd.read_csv`` reads as one): ``refuse`` raises, ``drop`` leaves the row out of
        the score, ``zero`` scores it as 0, ``wrong`` as a prediction that matches no answer;
        ``drop_cells`` leaves the cell out of its column's score, ``column_fails`` scores its
        column ``single_class_score`` (the class's ``except ValueError``) (:func:`_column_mean`);
        ``sklearn`` leaves them to :func:`_check_predictions` (refused for numeric metrics)."""
        missing = submission[list(columns)].isna()
        if self.nan_predictions in ("sklearn", "drop_cells", "column_fails") or not missing.to_numpy().any():
            return submission
        first = missing.any(axis=1).to_numpy().argmax()
        if self.nan_predictions == "refuse":
            raise ValueError(
                f"{self.name}: a missing prediction in row {first + 1} ({int(missing.to_numpy().sum())} "
                "in all); MLE-Dojo's metric fails on it; write a prediction in every row"
            )
        if self.nan_predictions == "drop":
            return submission[~missing.any(axis=1)]
        fill = 0 if self.nan_predictions == "zero" else "\x00missing"
        return submission.astype({c: object for c in columns} if fill != 0 else {}).fillna(
            {c: fill for c in columns}
        )

    def _ids(self, frame: pd.DataFrame) -> pd.Index:
        """The ids as MLE-Dojo compares them: ``astype(str)`` of the values ``pd.read_csv`` read."""
        parts = [_id_text(frame[c], self.ids_as) for c in self._id_names(frame)]
        return pd.Index(["\x1f".join(p) for p in zip(*parts)] if len(parts) > 1 else parts[0])

    def _required(self, answers: pd.DataFrame) -> Columns:
        """The submission's columns besides the id: the predictions, then the unscored ones."""
        return (*(self.submission_columns or self._answer_columns(answers)), *self.unscored_columns)

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


_SKLEARN_LABEL_METRICS = ("accuracy", "macro_f1", "micro_f1", "f1", "qwk", "mcc")


def _id_text(ids: pd.Series, ids_as: str) -> np.ndarray:
    """Ids as compared: the text ``pd.read_csv`` read, or (``value``) numbers as numbers."""
    if ids_as == "value" and pd.api.types.is_numeric_dtype(ids):
        ids = ids.astype(float)
    return ids.astype(str).to_numpy()


def _check_missing_columns(submission: pd.DataFrame, expected: list[str]) -> None:
    missing = [c for c in expected if c not in submission.columns]
    if missing:
        raise ValueError(
            f"Missing required columns in submission: {', '.join(map(str, missing))}; "
            f"the columns are {', '.join(expected)}"
        )


def _check_extra_columns(submission: pd.DataFrame, expected: list[str]) -> None:
    extra = [c for c in submission.columns if c not in expected]
    if extra:
        raise ValueError(
            f"Extra unexpected columns found in submission: {', '.join(map(str, extra))}; "
            f"the columns are {', '.join(expected)}"
        )


def _check_predictions(
    metric: Metric, submission: pd.DataFrame, columns: Columns, whole_labels: bool = True
) -> None:
    """What MLE-Dojo's scikit-learn call refuses: a missing prediction (``NaN``, or text
    ``pd.read_csv`` reads as one) for a numeric metric, and non-whole numbers for a metric of
    class labels ("a mix of ... and continuous targets")."""
    for column in columns:
        values = submission[column]
        if metric.kind in ("proba", "value", "label") and values.isna().any():
            raise ValueError(
                f"Input y_pred contains NaN: column {column!r} has {int(values.isna().sum())} "
                "missing value(s); write a prediction in every row"
            )
        if whole_labels and metric.name in _SKLEARN_LABEL_METRICS and pd.api.types.is_float_dtype(values):
            if not np.all(values == np.round(values)):
                raise ValueError(
                    f"Classification metrics can't handle continuous targets: column {column!r} "
                    f"holds non-whole numbers (e.g. {values[values != np.round(values)].iloc[0]!r}); "
                    "write class labels"
                )


def _column_mean(
    metric: Metric, truth: np.ndarray, guess: np.ndarray, needs: list, failed: float | None = None
) -> float:
    """A mean-over-columns metric with each column scored on its rows that hold a prediction
    (pandas' ``skipna`` in MLE-Dojo's per-column loop), or, ``failed`` given, a column with a
    missing prediction scored ``failed``; ``needs`` must be per-row."""
    truth, guess = truth.reshape(len(truth), -1), guess.reshape(len(guess), -1)
    scores = []
    for j in range(guess.shape[1]):
        keep = ~pd.isna(guess[:, j])
        if failed is not None and not keep.all():
            scores.append(failed)
            continue
        scores.append(metric(truth[keep, j], guess[keep, j].astype(float), *[n[keep] for n in needs]))
    return float(np.mean(scores))


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
    for key in ("submission_columns", "unscored_columns"):
        if key in values:
            values[key] = _columns(values[key], name, key)
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
    if entry.probabilities not in (None, "sum_to_one", "within_0_1"):
        raise ValueError(f"{name}: probabilities must be sum_to_one or within_0_1")
    if entry.ids_as not in ("text", "value"):
        raise ValueError(f"{name}: ids_as must be text or value")
    if entry.id_by_name and entry.id_column != 0:
        raise ValueError(f"{name}: id_by_name is {entry.id_by_name!r} with id_column {entry.id_column!r}; "
                         "it names the answers' first column, so set id_column to 0 or drop id_by_name")
    if entry.nan_predictions not in NAN_RULES:
        raise ValueError(f"{name}: nan_predictions must be one of {NAN_RULES}")
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
