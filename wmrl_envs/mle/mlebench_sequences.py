"""mle-bench's grading rules for competitions whose answers are texts or sequences.

Word-set Jaccard (tweet-sentiment-extraction, chaii-hindi-and-tamil-question-answering), mean edit
distance (billion-word-imputation, bms-molecular-translation), gesture error rate
(multi-modal-gesture-recognition) and the Kendall tau of cell orders (AI4Code), each as that
competition's ``grade.py`` in mle-bench 783b15a computes it (written here from reading those files;
nothing copied). What decides verdicts here is how each file turns a cell into text: some fill a
blank with ``""`` (tweet, chaii), some call ``astype(str)`` (bms, multi-modal-gesture, AI4Code:
with pandas 3 a blank stays missing there and the next ``.split()`` or edit distance fails, so no
score), one reads cells as they come (billion-word: a number or a blank is not text, no score),
and mle-bench's ``Levenshtein.distance`` accepts only texts or lists. :data:`SEQUENCE_RULES` joins
``mlebench_rules.RULES``.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn import metrics as skm
from sklearn.preprocessing import MultiLabelBinarizer

from wmrl_envs.mle.metrics import edit_distance
from wmrl_envs.mle.mlebench_checks import Refused, Rule, need, sorted_ids_match


def _checked(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both columns, the row count, then the ids equal once sorted (every rule here but AI4Code's)."""
    need(sub, id_col)
    need(sub, target)
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    return sorted_ids_match(sub, ans, id_col)


def _text(value: object, column: str) -> str:
    """``value`` if it is text; else no score (mle-bench's ``.lower()``, ``.split()`` or
    ``Levenshtein.distance`` raises on a number or a blank)."""
    if not isinstance(value, str):
        raise Refused(f"`{column}` value {value!r} is not text")
    return value


def _word_jaccard(predicted: str, truth: str) -> float:
    """tweet-sentiment-extraction's Jaccard of lower-cased word sets; both empty is 0/0, which
    raises in mle-bench (no score), not 1."""
    a, b = set(predicted.lower().split()), set(truth.lower().split())
    union = len(a) + len(b) - len(a & b)
    if union == 0:
        raise Refused("a prediction and its answer are both empty: their Jaccard index is 0/0")
    return len(a & b) / union


def tweet(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean word Jaccard of ``selected_text``; a blank is ``""``, a number its text."""
    sub, ans = _checked(sub, ans, "textID", "selected_text")
    predicted = sub["selected_text"].fillna("").astype(str)
    truth = ans["selected_text"].fillna("").astype(str)
    return float(np.mean([_word_jaccard(p, t) for p, t in zip(predicted, truth)]))


def chaii(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """scikit-learn's sample-averaged Jaccard of the lower-cased word sets of ``PredictionString``
    (a row whose sets are both empty scores 0); a blank is ``""``, a number no score (no text)."""
    sub, ans = _checked(sub, ans, "id", "PredictionString")
    y_pred = [set(_text(v, "PredictionString").lower().split()) for v in sub["PredictionString"].fillna("")]
    y_true = [set(_text(v, "PredictionString").lower().split()) for v in ans["PredictionString"].fillna("")]
    binarizer = MultiLabelBinarizer(classes=sorted(set().union(*y_true, *y_pred)), sparse_output=True)
    return skm.jaccard_score(binarizer.fit_transform(y_true), binarizer.transform(y_pred), average="samples")


def _mean_edit_distance(truth: pd.Series, predicted: pd.Series, column: str) -> float:
    return float(np.mean([edit_distance(_text(t, column), _text(p, column)) for t, p in zip(truth, predicted)]))


def billion_word(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean character edit distance of ``sentence``, cells as read: a blank or a number is no score."""
    sub, ans = _checked(sub, ans, "id", "sentence")
    return _mean_edit_distance(ans["sentence"], sub["sentence"], "sentence")


def bms(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean character edit distance of ``InChI`` after ``astype(str)``: a number is its text, a
    blank (missing under pandas 3) no score."""
    sub, ans = _checked(sub, ans, "image_id", "InChI")
    return _mean_edit_distance(ans["InChI"].astype(str), sub["InChI"].astype(str), "InChI")


def _gestures(value: object) -> list[int]:
    """A ``Sequence`` cell as its space-separated integers (Python's ``int``); anything else no score."""
    text = _text(value, "Sequence")
    try:
        return [int(token) for token in text.split()]
    except ValueError as e:
        raise Refused(f"Submission sequences must be integers separated by spaces: {e}") from None


def gestures(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Summed edit distance between the gesture sequences over the answers' number of gestures
    (an error rate that can pass 1); ``Sequence`` read through ``astype(str)``."""
    sub, ans = _checked(sub, ans, "Id", "Sequence")
    truth = [_gestures(v) for v in ans["Sequence"].astype(str)]
    predicted = [_gestures(v) for v in sub["Sequence"].astype(str)]
    return np.sum([edit_distance(t, p) for t, p in zip(truth, predicted)]) / sum(len(t) for t in truth)


def _inversions(ranks: Sequence[int]) -> int:
    """Pairs out of order: each rank counts the earlier ranks above it."""
    seen: list[int] = []
    count = 0
    for i, rank in enumerate(ranks):
        at = bisect.bisect(seen, rank)
        count += i - at
        seen.insert(at, rank)
    return count


def ai4code(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Kendall tau pooled over notebooks: 1 - 4 x inversions / sum of n(n - 1). The ids are
    compared as sets after the row count; each answer cell is ranked by its *first* place in the
    submitted order, so an order of another length, or one missing a cell, is no score."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    if "id" not in sub.columns or "cell_order" not in sub.columns:
        raise Refused("Submission must have 'id' and 'cell_order' columns")
    if set(sub["id"]) != set(ans["id"]):
        raise Refused("Submission and answers must have the same ids")
    sub = sub.assign(cell_order=sub["cell_order"].astype(str)).sort_values("id")
    ans = ans.assign(cell_order=ans["cell_order"].astype(str)).sort_values("id")
    inversions = pairs = 0
    for submitted, truth in zip(sub["cell_order"], ans["cell_order"]):
        order, cells = _text(submitted, "cell_order").split(), _text(truth, "cell_order").split()
        if len(order) != len(cells):
            raise Refused(f"A submitted order has {len(order)} cells, its answer {len(cells)}")
        try:
            inversions += _inversions([order.index(cell) for cell in cells])
        except ValueError:
            raise Refused("A submitted order misses a cell of its answer") from None
        pairs += len(cells) * (len(cells) - 1)
    if pairs == 0:
        raise Refused("No notebook has two cells: Kendall tau is 0/0")
    return 1 - 4 * inversions / pairs


SEQUENCE_RULES: dict[str, Rule] = {
    "tweet-sentiment-extraction": Rule(tweet, "jaccard", True),
    "chaii-hindi-and-tamil-question-answering": Rule(chaii, "jaccard", True),
    "billion-word-imputation": Rule(billion_word, "levenshtein", False),
    "bms-molecular-translation": Rule(bms, "levenshtein", False),
    "multi-modal-gesture-recognition": Rule(gestures, "token_error_rate", False),
    "AI4Code": Rule(ai4code, "kendall_tau_order", True),
}
