"""Blank predictions: the score the benchmark reports, and the score the env pays on.

**Why two numbers.** The project's rule is twofold: a submission is graded exactly as its
benchmark grades it, and whatever lies between a program and its reward will be gamed. Both hold
for most tasks with one number; not for blank predictions. 23 MLE-Dojo competitions in the
registry (``nan_predictions: drop``, ``drop_cells``, ``column_fails``; the same in their own
classes, so with an MLE-Dojo checkout too) leave a missing prediction out of the score: a program
that blanks the rows it is least sure of is scored on the rest only, and an RMSE or MAE paid on
its easy rows beats the same program answering every row. Refusing such a file would break the
first rule (MLE-Dojo scores it); paying its score would pay for the trick.

**What is done.** The step's ``score`` stays the benchmark's, exactly. The reward is computed
from the *paid score*: the benchmark's score when no prediction is blank; with blanks, the worse
of the benchmark's score and the score of the same file with every blank cell replaced by the
sample submission's value for that row (matched by id; graded by the same grader). The sample is
the task's own "no answer" (a constant, 0.5, the input copied): a value any program can write. So
blanking a row pays at most what writing the sample's value in it pays, and a program gains
nothing by leaving rows blank that it would not gain by answering them with the sample; the worse
of the two keeps the cost of a blank where the benchmark already charges one (``zero``,
``wrong``, a column's fallback score). A blank the sample cannot fill (its id not in the sample)
or a filled file the grader refuses is paid as a failure, with the reason in the feedback.

This applies to every grader (registry, MLE-Dojo or mle-bench checkout, mle-bench's rules,
DSBench's scripts), since a benchmark's own code can skip blanks too. A blank is a cell
``pd.read_csv`` reads as missing (empty, ``NA``, ``NaN``, ``null``, ...) in a prediction column
(the sample's columns but the id). ``info["score"]`` is the benchmark's number,
``info["paid_score"]`` the one the reward is computed from, ``info["blank_predictions"]`` the
count of blank cells; the feedback says both numbers when they differ.

Where the benchmark scores a blank as an answer (the grader's ``blanks_are_answers``: mle-bench's
tensorflow2-question-answering reads a blank ``PredictionString`` as "no answer", right where the
example has none, wrong where it has one) nothing is left out of the score and the sample's value
is itself blank: there are no blank predictions in this sense and the score is paid as it is.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from wmrl_envs.mle.grading import InvalidSubmission, canonical

if TYPE_CHECKING:
    from wmrl_envs.mle.task import Task


@dataclass(frozen=True)
class Graded:
    """A graded submission: the benchmark's ``score`` and the ``paid`` score the reward is
    computed from (None: paid as a failure, ``note`` says why)."""

    score: float
    paid: float | None
    blanks: int = 0  # blank prediction cells
    note: str = ""


def paid_grade(task: Task, data: bytes, score: float) -> Graded:
    """``score`` (the benchmark's, of ``data``) with the score the env pays on (module docstring)."""
    if getattr(task.grader, "blanks_are_answers", False):
        return Graded(score, score)
    try:
        literal = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
        missing = pd.read_csv(io.BytesIO(data), dtype=str).isna()
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
        return Graded(score, score)  # the grader read it otherwise; pandas finds no cell to fill
    ids = id_columns(task)
    columns = [c for c in literal.columns if c in task.submission_columns and c not in ids]
    blanks = int(missing[columns].to_numpy().sum()) if columns else 0
    if blanks == 0:
        return Graded(score, score)
    filled, unfilled = _filled(task, literal, missing, columns, ids)
    if unfilled:
        why = f"{unfilled} blank prediction(s) have no row in the sample submission to fill them from"
        return Graded(score, None, blanks, f"{why}; paid as a failure")
    try:
        fill_score = task.grade(filled.to_csv(index=False).encode())
    except InvalidSubmission as e:
        why = f"the file with its blanks filled from the sample is refused ({e})"
        return Graded(score, None, blanks, f"{why}; paid as a failure")
    worse = min(score, fill_score) if task.metric.higher_is_better else max(score, fill_score)
    note = f"the same file with its blanks filled from the sample submission scores {fill_score:.6g}"
    return Graded(score, worse, blanks, note)


def id_columns(task: Task) -> list[str]:
    """The id column(s) of ``task``'s submissions: the grader's where it names them, else the task's."""
    named = getattr(task.grader, "id_columns", None)
    return list(named) if named else [task.id_column]


def _key(frame: pd.DataFrame, ids: list[str]) -> pd.Index:
    """Row keys: the id columns' text (whole numbers as integers, so ``1.0`` is ``1``), joined."""
    parts = [canonical(frame[c]) for c in ids]
    return pd.Index(["\x1f".join(map(str, p)) for p in zip(*parts)] if len(parts) > 1 else parts[0])


def _filled(
    task: Task, literal: pd.DataFrame, missing: pd.DataFrame, columns: list[str], ids: list[str]
) -> tuple[pd.DataFrame, int]:
    """``literal`` with each blank cell set to the sample's value for its row, and how many blanks
    could not be filled (no sample row for the id, or a blank sample cell)."""
    sample = pd.read_csv(io.BytesIO(task.sample_bytes), dtype=str, keep_default_na=False)
    sample_na = pd.read_csv(io.BytesIO(task.sample_bytes), dtype=str).isna()
    if all(c in literal.columns and c in sample.columns for c in ids):
        keys = _key(sample, ids)
        first = ~keys.duplicated()
        sample, sample_na = sample[first].set_index(keys[first]), sample_na[first].set_index(keys[first])
        rows = _key(literal, ids)
    elif len(sample) == len(literal):  # no id to match on: row by row
        rows = pd.RangeIndex(len(literal))
    else:
        return literal, int(missing[columns].to_numpy().sum())
    filled, unfilled = literal.copy(), 0
    for column in columns:
        mask = missing[column].to_numpy()
        if not mask.any():
            continue
        if column not in sample.columns:
            unfilled += int(mask.sum())
            continue
        where = sample.index.get_indexer(rows[mask])
        blank = sample_na[column].to_numpy()[np.maximum(where, 0)]
        ok = (where >= 0) & ~blank
        unfilled += int((~ok).sum())
        values = filled[column].to_numpy(dtype=object)
        targets = np.flatnonzero(mask)[ok]
        values[targets] = sample[column].to_numpy(dtype=object)[where[ok]]
        filled[column] = values
    return filled, unfilled
