"""mle-bench's grading rule for tensorflow2-question-answering, whose answers are JSON lines.

mle-bench (783b15a) loads ``prepared/private/test.jsonl`` with ``load_answers`` as a list of dicts,
one per example, and its ``grade.py`` scores a submission of two rows per example,
``<example_id>_long`` and ``<example_id>_short``, whose ``PredictionString`` is a token span
``start:end``, ``YES``, ``NO`` or blank (no answer). Each row gives a predicted bit (not blank)
and a true bit (the prediction is one of that row's answers in the example's first annotation;
for a blank, that there is one), scored by scikit-learn's micro F1 (so the share of rows whose
two bits agree). Written here from reading that file (nothing copied).

What decides verdicts, as there: the row count (twice the examples) before anything else; blanks
filled with ``""`` *in place* (under pandas 3 that raises on a column read as numbers with a
blank, such as an all-blank ``PredictionString``, as the sample submission has it: no score),
then every cell ``astype(str)``; both columns; the ids equal as sets, then unique; each cell
stripped, a text with exactly one colon is a span whose sides Python's ``int`` must read
(``" 12"``, ``"+3"`` and ``"1_2"`` read; ``"1.0"`` and ``""`` do not: no score), and anything
else but ``YES``, ``NO`` and blank is no score (``yes`` included).
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
from sklearn import metrics as skm

from wmrl_envs.mle.mlebench_checks import Refused, Rule

ANSWER_KEYS = ("example_id", "annotations")  # all grade.py reads of an example
Prediction = tuple[int, int] | str


def _checked(sub: pd.DataFrame, answers: list[dict[str, Any]]) -> pd.DataFrame:
    """The submission as text cells once grade.py's checks pass (the module docstring's order)."""
    if len(sub) != 2 * len(answers):
        raise Refused(f"Submission length {len(sub)} != 2 * answers length {len(answers)}")
    sub = _filled(sub).astype(str)
    expected = {f"{a['example_id']}_{part}" for a in answers for part in ("long", "short")}
    if not {"example_id", "PredictionString"} <= set(sub.columns):
        raise Refused("Submission requires 'example_id' and 'PredictionString' columns.")
    if set(sub["example_id"]) != expected:
        raise Refused("Submission example_ids are not each example's <example_id>_long and <example_id>_short")
    if len(set(sub["example_id"])) != len(sub):
        raise Refused("Submission example_ids are not unique")
    return sub


def _filled(sub: pd.DataFrame) -> pd.DataFrame:
    """A copy with every blank ``""``, filled in place as grade.py fills it (not in place, pandas 3
    would cast a float column to text instead of raising)."""
    sub = sub.copy()
    try:
        with warnings.catch_warnings():  # pandas' notice that "" in a float column will raise, as it does with a blank
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", FutureWarning)
            sub.fillna("", inplace=True)
    except TypeError as e:
        raise Refused(
            f"grade.py's fillna('') fails ({e}): a column pandas reads as numbers has a blank, such as a "
            "PredictionString with no span, YES or NO in any row; write at least one"
        ) from None
    return sub


def _prediction(cell: str) -> Prediction:
    """A cell as grade.py reads it: a span ``(start, end)``, ``"YES"``, ``"NO"`` or ``""`` (no answer)."""
    text = cell.strip()
    sides = text.split(":")
    if len(sides) == 2:
        try:
            return int(sides[0]), int(sides[1])
        except ValueError as e:  # grade.py lets int()'s error out: no score, as for a refusal
            raise Refused(f"the span {text!r} needs a whole number on each side of the colon ({e})") from None
    if text in ("YES", "NO", ""):
        return text
    raise Refused(f"Invalid submission format: {text}")


def _span(answer: dict[str, Any]) -> tuple[int, int]:
    return int(answer["start_token"]), int(answer["end_token"])


def _valid_answers(row_id: str, annotations: dict[str, Any]) -> list[Prediction]:
    """What counts as right in the row ``row_id``: the long answer's span (none where its start is
    -1), or the short answers' spans and the yes/no answer (none where it is ``NONE``)."""
    if row_id.endswith("_long"):
        long = annotations[row_id.split("_long")[0]]["long_answer"]
        return [_span(long)] if long["start_token"] != -1 else []
    if row_id.endswith("_short"):
        annotation = annotations[row_id.split("_short")[0]]
        valid: list[Prediction] = [_span(s) for s in annotation["short_answers"]]
        if annotation["yes_no_answer"] != "NONE":
            valid.append(annotation["yes_no_answer"])
        return valid
    raise Refused(f"sample_id {row_id} does not end with '_long' or '_short'")


def tf2_qa(sub: pd.DataFrame, answers: list[dict[str, Any]]) -> float:
    """Micro F1 of the (true, predicted) bits of every row (module docstring)."""
    sub = _checked(sub, answers)
    annotations = {a["example_id"]: a["annotations"][0] for a in answers}
    y_true, y_pred = [], []
    for row_id, cell in zip(sub["example_id"], sub["PredictionString"]):
        pred = _prediction(cell)
        valid = _valid_answers(row_id, annotations)
        y_pred.append(1 if pred else 0)
        y_true.append(int(pred in valid) if pred else int(bool(valid)))
    return skm.f1_score(y_true=y_true, y_pred=y_pred, average="micro")


QA_RULES: dict[str, Rule] = {
    "tensorflow2-question-answering": Rule(
        tf2_qa, "micro_f1", True,
        note="under pandas 3 an all-blank PredictionString, as in the sample submission, is no score: "
        "grade.py's in-place fillna('') raises on a column read as numbers",
        answer_keys=ANSWER_KEYS, blanks_are_answers=True,
    ),
}
