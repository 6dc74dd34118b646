"""What every mle-bench rule shares: the refusal, the rule record, and the two checks most
competitions' ``grade.py`` make (a column is present; the ids are equal once both files are
sorted on them). Its own module so that the rule families (``mlebench_rules.py``, tables and
labels; ``mlebench_sequences.py``, texts and sequences) can both use it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd


class Refused(Exception):
    """What mle-bench raises as ``InvalidSubmissionError``: the submission cannot be graded."""


@dataclass(frozen=True)
class Rule:
    """One competition's grade function and how its score reads.

    ``grade(submission, answers)`` takes the answers as mle-bench's ``load_answers`` gives them: a
    frame for a CSV, a list of dicts for JSON lines (tensorflow2-question-answering)."""

    grade: Callable[[pd.DataFrame, Any], float]
    metric: str  # the wmrl metric the score is (shown to the agent; never used to grade)
    higher_is_better: bool
    note: str = ""  # what a user should know of the exactness (``wmrl tasks`` shows it)
    # JSON-lines answers: the keys of each record grade.py reads; the others are dropped on loading
    # (tensorflow2-question-answering's records hold whole documents). Empty: every key kept.
    answer_keys: tuple[str, ...] = ()
    # grade.py scores a blank prediction as an answer ("no answer") rather than leaving it out, so
    # blanks.py pays the score as it is (tensorflow2-question-answering)
    blanks_are_answers: bool = False


def need(frame: pd.DataFrame, column: str, what: str = "Submission") -> None:
    if column not in frame.columns:
        raise Refused(f"{what} must have a `{column}` column")


def sorted_ids_match(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both frames sorted on ``id_col``; refused unless the sorted ids are equal position by position
    (numpy's elementwise ``!=``: files of different lengths raise, which is no score as well)."""
    sub, ans = sub.sort_values(id_col), ans.sort_values(id_col)
    if (sub[id_col].values != ans[id_col].values).any():  # type: ignore[union-attr]  # pandas-stubs types ExtensionArray != as bool; it is elementwise
        raise Refused(f"Submission and answers should have the same {id_col} values")
    return sub, ans
