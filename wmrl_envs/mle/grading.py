"""Grading a ``submission.csv`` against hidden answers, with messages a program's author can act on.

A submission is written by the program being trained, so it is parsed as hostile input: its size is
capped per task (:func:`submission_cap`), binary and non-UTF-8 files are refused, the header is read
first and refused when wider than the task allows, and one strict CSV reader parses the rows up to a
row cap, so the work is linear in a bounded size. Every problem raises :class:`InvalidSubmission`,
whose one-line text says what was expected; nothing else escapes :func:`grade`.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wmrl_envs.mle.metrics import Metric

SIZE_FACTOR = 32
"""A submission may be this many times its task's sample submission: the sample's shortest values
("0") rewritten at full float precision ("%.18e", 25 characters with the comma) still fit, with room
for quoting and CRLF line ends."""
MIN_SIZE_CAP = 1 << 20  # and at least 1 MiB, for tasks with tiny samples
COLUMN_SLACK = 8  # header columns beyond the expected ones that are still read (to name them)
ROW_SLACK = 100  # rows beyond the expected ones that are still read (to count them)
SHOWN_CHARS = 40  # echoed names and ids are cut to this many characters


class InvalidSubmission(ValueError):
    """The submission cannot be scored; the message says why and what was expected."""


def submission_cap(sample: bytes) -> int:
    """The largest submission accepted for a task with this sample submission, in bytes."""
    return max(MIN_SIZE_CAP, SIZE_FACTOR * len(sample))


def shown(values: Iterable, limit: int = 3) -> str:
    """Submission-controlled values for a message: the first ``limit``, each cut short and escaped."""
    items = [str(v) for v in values]
    cut = [repr(v[:SHOWN_CHARS] + "..." if len(v) > SHOWN_CHARS else v) for v in items[:limit]]
    return "[" + ", ".join(cut + (["..."] if len(items) > limit else [])) + "]"


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


def _text(data: bytes, what: str) -> io.TextIOWrapper:
    """``data`` as a UTF-8 text stream (a BOM is dropped); UTF-16 and binary files are refused."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InvalidSubmission(
            f"{what} is not a valid UTF-8 CSV file: it is UTF-16 text; write it as UTF-8 (to_csv's default)"
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InvalidSubmission(
            f"{what} is not a valid UTF-8 CSV file: it holds a NUL byte at offset {nul} (binary or "
            "UTF-16?); write it with DataFrame.to_csv"
        )
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")


def _header(row: list[str], what: str, expected: list[str] | None, as_pandas: bool = False) -> list[str]:
    """Column names of the header ``row``; refused when repeated or far wider than ``expected``
    (``as_pandas``: kept, as ``pd.read_csv`` keeps them, for graders that read the file so)."""
    names = [c.strip() for c in row]
    if as_pandas:
        return names
    if expected is not None and len(names) > len(expected) + COLUMN_SLACK:
        raise InvalidSubmission(
            f"the header of {what} has {len(names)} columns; expected {len(expected)}: {','.join(expected)}"
        )
    repeated = [n for n, k in Counter(names).items() if k > 1]
    if repeated:
        raise InvalidSubmission(
            f"the header of {what} repeats the column name(s) {shown(repeated)}"
        )
    return names


def _rows(
    data: bytes, what: str, expected: list[str] | None, expected_rows: int | None, as_pandas: bool = False
) -> tuple[list[str], list[list[str]]]:
    """The header and data rows of ``data``: blank lines skipped, every row as wide as the header
    (``as_pandas``: a shorter row is padded with empty cells, as ``pd.read_csv`` pads it)."""
    reader = csv.reader(_text(data, what), skipinitialspace=True, strict=True)
    max_rows = None if expected_rows is None else expected_rows + ROW_SLACK
    header: list[str] | None = None
    rows: list[list[str]] = []
    try:
        for row in reader:
            if len(row) <= 1 and not "".join(row).strip():
                continue
            if header is None:
                header = _header(row, what, expected, as_pandas)
            elif as_pandas and len(row) < len(header):
                rows.append(row + [""] * (len(header) - len(row)))
            elif len(row) != len(header):
                raise InvalidSubmission(
                    f"line {reader.line_num} of {what} has {len(row)} fields but the header has "
                    f"{len(header)}; write one value per column on every row"
                )
            elif max_rows is not None and len(rows) == max_rows:
                raise InvalidSubmission(
                    f"wrong row count: expected {expected_rows} rows (one per row of test.csv), "
                    f"got more than {max_rows}"
                )
            else:
                rows.append(row)
    except csv.Error as e:
        raise InvalidSubmission(
            f"{what} is not valid CSV at line {reader.line_num} ({e}); write it with DataFrame.to_csv"
        ) from None
    except UnicodeDecodeError as e:
        raise InvalidSubmission(
            f"{what} is not a valid UTF-8 CSV file: it holds the byte 0x{e.object[e.start]:02x} "
            "(latin-1 or binary?); write it with encoding='utf-8'"
        ) from None
    if header is None:
        raise InvalidSubmission(f"{what} is empty; write a header row and one row per test id")
    return header, rows


def read_csv_text(
    data: bytes,
    what: str = "submission.csv",
    expected: list[str] | None = None,
    expected_rows: int | None = None,
    as_pandas: bool = False,
) -> pd.DataFrame:
    """Parse CSV bytes with every cell as text (``NaN`` for empty cells).

    With ``expected`` columns and ``expected_rows``, a header more than ``COLUMN_SLACK`` columns
    wider, or more than ``ROW_SLACK`` extra rows, is refused as soon as it is read.
    """
    header, rows = _rows(data, what, expected, expected_rows, as_pandas)
    df = pd.DataFrame(rows, columns=header, dtype=object)
    return df.mask(df == "")


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
        index = any(c == "" or c.startswith("Unnamed") for c in extra)
        raise InvalidSubmission(
            f"wrong columns: expected {expected}, got {shown(sub.columns, 10)}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unexpected {shown(extra)}" if extra else "")
            + (" (write it with index=False)" if index else "")
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
            f"{len(dup)} duplicated id(s) in {answers.id_column!r}, e.g. {shown(dup)}"
        )
    order = ids.get_indexer(answers.ids)
    if (order < 0).any():
        unknown = ids.difference(pd.Index(answers.ids))
        raise InvalidSubmission(
            f"ids do not match test.csv: {int((order < 0).sum())} test id(s) missing, "
            f"{len(unknown)} unknown id(s) such as {shown(unknown)}"
        )
    pred = _predictions(sub.iloc[order].reset_index(drop=True), answers)
    metric = answers.metric
    try:
        if metric.kind == "value":
            score = float(np.mean(
                [metric(answers.y_true[:, j], pred[:, j]) for j in range(pred.shape[1])]
            ))
        else:
            score = metric(answers.y_true, pred)
    except ValueError as e:
        raise InvalidSubmission(f"{metric.name} cannot score these predictions ({e})") from None
    if not np.isfinite(score):
        raise InvalidSubmission(
            f"the predictions make {metric.name} {score}; predict values on the target's scale"
        )
    return float(score)


def check_submission(
    data: bytes | None,
    expected: list[str],
    n_rows: int,
    max_bytes: int,
    refused: str | None = None,
    as_pandas: bool = False,
) -> pd.DataFrame:
    """The submission parsed as text cells, after every check that needs no answers.

    ``expected`` are the submission's columns, ``n_rows`` the answers' rows, ``max_bytes`` the
    task's :func:`submission_cap`, ``refused`` why the sandbox did not copy the file out, if it
    did not (``RunResult.refused``); ``as_pandas`` for a grader that reads the file with
    ``pd.read_csv`` and decides the rest itself (mle-bench's: repeated or extra columns and short
    rows are its to judge). Raises :class:`InvalidSubmission`.
    """
    if data is None and refused is not None:
        raise InvalidSubmission(
            f"submission.csv was not read ({refused}); this task accepts at most "
            f"{max_bytes / 2**20:.1f} MiB, a regular file of {n_rows} rows with columns {expected}"
        )
    if data is None:
        raise InvalidSubmission(
            "no submission.csv was written as a regular file (links, FIFOs and directories are "
            f"refused); save predictions for the test rows to ./submission.csv with columns {expected}"
        )
    if len(data) > max_bytes:
        raise InvalidSubmission(
            f"submission.csv is {len(data) / 2**20:.1f} MiB, over the {max_bytes / 2**20:.1f} MiB limit "
            f"of this task; it should hold {n_rows} rows"
        )
    return read_csv_text(data, expected=expected, expected_rows=n_rows, as_pandas=as_pandas)


def grade(data: bytes | None, answers: Answers, max_bytes: int, refused: str | None = None) -> float:
    """Score submission bytes (``None``: no file) against ``answers``; raises :class:`InvalidSubmission`."""
    expected = [answers.id_column, *answers.columns]
    return score_frame(check_submission(data, expected, len(answers), max_bytes, refused), answers)
