"""Grading a ``submission.csv`` against hidden answers, with messages a program's author can act on.

Every problem with a submission raises :class:`InvalidSubmission` whose text says what was
expected; nothing else escapes :func:`grade`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wmrl_envs.mle.metrics import Metric

MAX_SUBMISSION_BYTES = 64 << 20


class InvalidSubmission(ValueError):
    """The submission cannot be scored; the message says why and what was expected."""


def canonical(values: pd.Series) -> np.ndarray:
    """Values as comparable text: numbers that are whole print as integers (``1.0`` -> ``"1"``)."""
    text = values.astype(str).str.strip()
    nums = pd.to_numeric(text, errors="coerce")
    if len(nums) and nums.notna().all():
        out = nums.astype(str).to_numpy(dtype=object)
        whole = (np.isfinite(nums) & (nums == np.round(nums))).to_numpy()
        out[whole] = [str(int(v)) for v in nums.to_numpy()[whole]]
        return out
    return text.to_numpy(dtype=object)


def read_csv_text(data: bytes, what: str = "submission.csv") -> pd.DataFrame:
    """Parse CSV bytes with every column as text (``NaN`` for empty cells)."""
    try:
        df = pd.read_csv(io.BytesIO(data), dtype=str, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InvalidSubmission(
            f"{what} is empty; write a header row and one row per test id"
        ) from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        raise InvalidSubmission(
            f"{what} is not a valid UTF-8 CSV file ({str(e).splitlines()[0][:200]})"
        ) from None
    df.columns = [str(c).strip() for c in df.columns]
    return df


@dataclass(frozen=True)
class Answers:
    """Hidden answers prepared once for fast grading."""

    metric: Metric
    id_column: str
    columns: tuple[str, ...]  # submission columns other than the id, in order
    ids: np.ndarray  # canonical id text, answer order
    y_true: np.ndarray

    @classmethod
    def from_frame(
        cls, df: pd.DataFrame, id_column: str, metric: Metric, columns: list[str]
    ) -> Answers:
        """``df`` has the id column and the submission's other ``columns`` (as text or values)."""
        df = df.astype(str)
        missing = [c for c in [id_column, *columns] if c not in df.columns]
        if missing:
            raise ValueError(f"the answers lack the submission columns {missing}")
        if metric.kind == "proba" and len(columns) > 1:
            y = np.argmax(df[list(columns)].apply(pd.to_numeric).to_numpy(), axis=1)
        elif metric.kind == "proba":
            y = _binary_truth(df[columns[0]])
        elif metric.kind == "label":
            y = canonical(df[columns[0]])
        else:
            y = df[list(columns)].apply(pd.to_numeric).to_numpy(dtype=np.float64)
        return cls(metric, id_column, tuple(columns), canonical(df[id_column]), y)

    def __len__(self) -> int:
        return int(self.ids.size)


def _binary_truth(col: pd.Series) -> np.ndarray:
    values = canonical(col)
    labels = sorted(set(values))
    if set(labels) <= {"0", "1"}:
        return (values == "1").astype(np.int64)
    if len(labels) != 2:
        raise ValueError(f"binary answers need two labels, found {labels[:5]}")
    return (values == labels[1]).astype(np.int64)  # the larger label is positive, as in sklearn


def _numeric(sub: pd.DataFrame, columns: tuple[str, ...]) -> np.ndarray:
    values = (
        sub[list(columns)]
        .apply(lambda c: pd.to_numeric(c, errors="coerce"))
        .to_numpy(dtype=np.float64)
    )
    bad = ~np.isfinite(values)
    if bad.any():
        col = columns[int(np.argmax(bad.any(axis=0)))]
        raise InvalidSubmission(
            f"{int(bad.sum())} prediction(s) are missing, NaN, infinite or not numbers "
            f"(first in column {col!r}); every row needs a finite number"
        )
    return values


def _predictions(sub: pd.DataFrame, answers: Answers) -> np.ndarray:
    metric, cols = answers.metric, answers.columns
    if metric.kind == "label":
        col = sub[cols[0]]
        if col.isna().any():
            raise InvalidSubmission(
                f"{int(col.isna().sum())} predicted label(s) in {cols[0]!r} are empty"
            )
        return canonical(col)
    values = _numeric(sub, cols)
    if metric.kind == "value":
        if metric.nonnegative and (values < 0).any():
            raise InvalidSubmission(
                f"{int((values < 0).sum())} prediction(s) are negative; {metric.name} needs values >= 0"
            )
        return values
    if len(cols) == 1:
        if metric.name != "roc_auc" and ((values < 0) | (values > 1)).any():
            raise InvalidSubmission(f"probabilities must lie in [0, 1] for {metric.name}")
        return values[:, 0]
    sums = values.sum(axis=1, keepdims=True)
    if (values < 0).any() or (sums <= 0).any():
        raise InvalidSubmission("class probabilities must be >= 0 with a positive sum in every row")
    return values / sums  # rescaled to sum to 1, as Kaggle does


def score_frame(sub: pd.DataFrame, answers: Answers) -> float:
    """Check a parsed submission (all text) against ``answers`` and score it."""
    expected = [answers.id_column, *answers.columns]
    if list(sub.columns) != expected and set(sub.columns) != set(expected):
        missing = [c for c in expected if c not in sub.columns]
        extra = [c for c in sub.columns if c not in expected]
        hint = " (write it with index=False)" if any(c.startswith("Unnamed") for c in extra) else ""
        raise InvalidSubmission(
            f"wrong columns: expected {expected}, got {list(sub.columns)[:20]}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unexpected {extra[:10]}{hint}" if extra else "")
        )
    if len(sub) != len(answers):
        raise InvalidSubmission(
            f"wrong row count: expected {len(answers)} rows (one per row of test.csv), got {len(sub)}"
        )
    if sub[answers.id_column].isna().any():
        raise InvalidSubmission(
            f"{int(sub[answers.id_column].isna().sum())} row(s) have an empty {answers.id_column!r}"
        )
    ids = pd.Index(canonical(sub[answers.id_column]))
    if ids.has_duplicates:
        dup = ids[ids.duplicated()].unique()
        raise InvalidSubmission(
            f"{len(dup)} duplicated id(s) in {answers.id_column!r}, e.g. {list(dup[:3])}"
        )
    order = ids.get_indexer(answers.ids)
    if (order < 0).any():
        unknown = ids.difference(pd.Index(answers.ids))
        raise InvalidSubmission(
            f"ids do not match test.csv: {int((order < 0).sum())} test id(s) missing, "
            f"{len(unknown)} unknown id(s) such as {list(unknown[:3])}"
        )
    pred = _predictions(sub.iloc[order].reset_index(drop=True), answers)
    if answers.metric.kind == "value":
        return float(
            np.mean(
                [answers.metric(answers.y_true[:, j], pred[:, j]) for j in range(pred.shape[1])]
            )
        )
    return float(answers.metric(answers.y_true, pred))


def grade(data: bytes | None, answers: Answers, max_bytes: int = MAX_SUBMISSION_BYTES) -> float:
    """Score submission bytes (``None``: no file) against ``answers``; raises :class:`InvalidSubmission`."""
    if data is None:
        raise InvalidSubmission(
            "no submission.csv was written; save predictions for data/test.csv to ./submission.csv "
            f"with columns {[answers.id_column, *answers.columns]}"
        )
    if len(data) > max_bytes:
        raise InvalidSubmission(
            f"submission.csv is {len(data) / 2**20:.1f} MiB, over the {max_bytes / 2**20:.0f} MiB limit; "
            f"it should hold {len(answers)} rows"
        )
    return score_frame(read_csv_text(data), answers)
