"""mle-bench's grading rules, competition by competition, without an mle-bench checkout.

mle-bench (github.com/openai/mle-bench, checked at 783b15a) grades a submission with the
competition's ``grade(submission, answers)`` (``mlebench/competitions/<id>/grade.py``), both frames
read by ``pd.read_csv(float_precision="round_trip")`` (answers in JSON lines as a list of dicts,
``mlebench_qa.py``); any exception it raises means "no score"
(``None``), and a score is reported rounded to 5 places (``Grader.__call__``). Each competition
checks and aligns differently, and those differences decide verdicts, so every rule below does
what that competition's ``grade.py`` does, with the same pandas, numpy, scipy and scikit-learn
calls: rows aligned by sorting on the id (most), by position (nomad2018), by a sorted index
(jigsaw), by an inner merge (predict-volcanic-eruptions, champs), by a set of weeks (osic),
prediction columns read by name or in file order (spooky, jigsaw, freesound), labels read by
Python's ``int`` (herbarium, iwildcam-2019) or split on spaces (the MAP@k and label-set rules),
which columns, lengths, ranges and row sums are refused. Where a rule makes the checks in another
order, any failing one still means no score; only the reason differs. Written here from reading
those files (nothing copied).

:data:`RULES` maps a competition id to its :class:`Rule`, those of ``mlebench_sequences.py`` (texts
and sequences: Jaccard, edit distances, orders), ``mlebench_masks.py`` (run-length masks: Dice,
F0.5, Hausdorff), ``mlebench_boxes.py`` (boxes and points: F1, average precision),
``mlebench_coco.py`` (vinbigdata's pycocotools evaluation) and ``mlebench_qa.py``
(tensorflow2-question-answering, whose answers are JSON lines) included: every competition with a
``grade.py`` at 783b15a. The checks they share are in ``mlebench_checks.py``.
``tests/mle/test_mlebench_differential.py`` compares every rule with mle-bench's own grade
functions on edge cases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr
from sklearn import metrics as skm
from sklearn.preprocessing import MultiLabelBinarizer

from wmrl_envs.mle.metrics import mean_angular_error, trip_haversine_p50_p95
from wmrl_envs.mle.mlebench_boxes import BOX_RULES
from wmrl_envs.mle.mlebench_checks import Refused, Rule, need, sorted_ids_match
from wmrl_envs.mle.mlebench_coco import COCO_RULES
from wmrl_envs.mle.mlebench_masks import MASK_RULES
from wmrl_envs.mle.mlebench_qa import QA_RULES
from wmrl_envs.mle.mlebench_sequences import SEQUENCE_RULES

ROUND_DIGITS = 5  # mle-bench's Grader rounds every score to 5 places


def _id_aligned(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both columns, the row count, then the ids equal once sorted: the checks most grade.py files
    make, in varying order (whichever fails first, there is no score, so the order only changes
    the reason)."""
    need(sub, id_col)
    need(sub, target)
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    return sorted_ids_match(sub, ans, id_col)


def _auroc_inputs(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str) -> tuple[np.ndarray, np.ndarray]:
    """mle-bench's ``prepare_for_auroc_metric``: columns, row count, numeric, within [0, 1], ids."""
    assert id_col in ans.columns and target in ans.columns, f"answers need {id_col} and {target}"
    need(sub, id_col)
    need(sub, target)
    if len(sub) != len(ans):
        raise Refused("Submission and answers should have the same number of rows")
    try:
        pd.to_numeric(sub[target])
    except ValueError:
        raise Refused(f"Expected {target} column to be numeric, got {sub[target].dtype} instead") from None
    if sub[target].min() < 0 or sub[target].max() > 1:
        raise Refused(f"Submission {target} column should contain probabilities between 0 and 1 inclusive")
    sub, ans = sorted_ids_match(sub, ans, id_col)
    return ans[target].to_numpy(), sub[target].to_numpy()


def auroc(id_col: str, target: str) -> Callable[[pd.DataFrame, pd.DataFrame], float]:
    def grade(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
        y_true, y_score = _auroc_inputs(sub, ans, id_col, target)
        return skm.roc_auc_score(y_true=y_true, y_score=y_score)

    return grade


def accuracy(id_col: str, target: str, blank: str | None = None) -> Callable[[pd.DataFrame, pd.DataFrame], float]:
    """mle-bench's ``prepare_for_accuracy_metric`` then ``accuracy_score``. ``blank``: what a missing
    prediction reads as (paddy's grade.py fills it with ``""``, a wrong class rather than no score)."""

    def grade(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
        assert target in ans.columns and id_col in ans.columns, f"answers need {id_col} and {target}"
        if len(sub) != len(ans):
            raise Refused("Submission must have the same length as the answers.")
        need(sub, target)
        need(sub, id_col)
        sub, ans = sorted_ids_match(sub, ans, id_col)
        predicted = sub[target] if blank is None else sub[target].fillna(blank)
        return skm.accuracy_score(y_true=ans[target].to_numpy(), y_pred=predicted.to_numpy())

    return grade


def text_normalization(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """text-normalization-challenge-{english,russian}-language's own ``prepare_for_metric``: the
    accuracy helper's checks with its own id message, then both ``after`` columns ``astype(str)``
    (with pandas 3 a blank stays missing there, and ``accuracy_score`` refuses the mix of text and
    NaN: no score; with pandas 2 it was the text ``"nan"``, counted wrong)."""
    assert "after" in ans.columns and "id" in ans.columns, "answers need id and after"
    if len(sub) != len(ans):
        raise Refused("Submission must have the same length as the answers.")
    need(sub, "after")
    need(sub, "id")
    sub, ans = sub.sort_values("id"), ans.sort_values("id")
    if (sub["id"].values != ans["id"].values).any():  # type: ignore[union-attr]  # elementwise, as in sorted_ids_match
        raise Refused("Submission and Answers `id`'s do not match")
    return skm.accuracy_score(y_true=ans["after"].astype(str).to_numpy(), y_pred=sub["after"].astype(str).to_numpy())


def taxi_rmse(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Sorted on ``key`` with no id or row check: rows are then compared by position."""
    need(sub, "fare_amount")
    need(sub, "key")
    sub, ans = sub.sort_values("key"), ans.sort_values("key")
    return skm.root_mean_squared_error(ans["fare_amount"], sub["fare_amount"])


def binary_log_loss(id_col: str, target: str, same_length: bool) -> Callable[[pd.DataFrame, pd.DataFrame], float]:
    """Log loss of one probability column; the ids compared as sets (so a repeated id passes),
    then (dogs-vs-cats only) the row count, then the range."""

    def grade(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
        need(sub, id_col)
        need(sub, target)
        if set(sub[id_col]) != set(ans[id_col]):
            raise Refused(f"Submission and answers have different {id_col}'s")
        if same_length and len(sub) != len(ans):
            raise Refused("Submission and answers have different lengths")
        if not ((sub[target] >= 0) & (sub[target] <= 1)).all():
            raise Refused(f"All values in submission `{target}` column must be between 0 and 1.")
        sub, ans = sub.sort_values(id_col), ans.sort_values(id_col)
        return skm.log_loss(y_true=ans[target], y_pred=sub[target])

    return grade


def _one_hot_log_loss(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str) -> float:
    """mle-bench's ``one_hot_dfs_to_log_loss_inputs`` (no softmax) then ``log_loss``: the answers'
    columns, in the answers' order, rows sorted on the id; the ids must then match exactly."""
    missing = set(ans.columns) - set(sub.columns)
    if missing:
        raise Refused(f"The submission is missing some columns required by the answers: {missing}")
    need(sub, id_col)
    kept = sub[[c for c in ans.columns if c in set(sub.columns)]]
    kept = kept.sort_values(by=id_col).reset_index(drop=True)
    ans = ans.sort_values(by=id_col).reset_index(drop=True)
    assert kept[id_col].tolist() == ans[id_col].tolist(), f"Mismatch in {id_col}s between submission and answers"
    assert list(kept.columns) == list(ans.columns), "Column order mismatch after filtering and sorting"
    y_true = ans.drop(columns=[id_col]).to_numpy()
    y_pred = kept.drop(columns=[id_col]).to_numpy()
    return skm.log_loss(y_true=y_true, y_pred=y_pred)


SPOOKY_CLASSES = ("EAP", "HPL", "MWS")


def spooky(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Shape first, then row sums and ranges over every column after the first, whatever its name."""
    if sub.shape != (len(ans), len(SPOOKY_CLASSES) + 1):
        raise Refused(f"Submission shape {sub.shape} does not match answers shape {ans.shape}.")
    probs = sub.iloc[:, 1:]
    if not np.all(np.isclose(probs.sum(axis=1), 1, atol=1e-6)):
        raise Refused("Each row in submission should sum to one, as probabilities.")
    if not ((probs >= 0) & (probs <= 1)).all().all():
        raise Refused("All probabilities in submission DataFrame must be between 0 and 1.")
    return _one_hot_log_loss(sub, ans, "id")


def _probabilities(sub: pd.DataFrame, classes: list[str]) -> None:
    """Each row of ``classes`` sums to one (within 1e-6) and every value is within [0, 1]."""
    if not np.all(np.isclose(sub[classes].sum(axis=1), 1, atol=1e-6)):
        raise Refused("Each row in submission should sum to one, as probabilities.")
    if not ((sub[classes] >= 0) & (sub[classes] <= 1)).all().all():
        raise Refused("All probabilities in submission DataFrame must be between 0 and 1.")


def _answer_classes(ans: pd.DataFrame) -> list[str]:
    """The class columns: every answer column but ``id`` (mle-bench checks the answers hold exactly
    its class list, so the answers name them)."""
    return [c for c in ans.columns if c != "id"]


def dog_breed(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Every breed column and the id present (others ignored), then row sums, ranges, one-hot log loss."""
    classes = _answer_classes(ans)
    if not all(c in sub.columns for c in classes):
        raise Refused("Submission must have columns for all dogs")
    need(sub, "id")
    if len(sub) != len(ans):
        raise Refused("Submission should be the same length as the answers")
    _probabilities(sub, classes)
    return _one_hot_log_loss(sub, ans, "id")


def leaf(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Exactly the id and the species columns, then row count, row sums, ranges, one-hot log loss."""
    classes = _answer_classes(ans)
    if set(sub.columns) != {"id", *classes}:
        raise Refused("Submission DataFrame must have an 'id' column and a column for each class.")
    if len(sub) != len(ans):
        raise Refused("Submission and answers DataFrames must have the same number of rows.")
    _probabilities(sub, classes)
    return _one_hot_log_loss(sub, ans, "id")


def denoising(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Pixel RMSE; ``value`` must read as floats; rows sorted on the id, ids equal position by position."""
    assert "id" in ans.columns and "value" in ans.columns, "answers need id and value"
    ans["value"].astype(float)
    need(sub, "id")
    need(sub, "value")
    try:
        sub["value"].astype(float)
    except ValueError:
        raise Refused("Submission must have float values in the 'value' column.") from None
    if len(sub) != len(ans):
        raise Refused(f"Expected the submission to have {len(ans)} rows, but got {len(sub)}.")
    sub = sub.sort_values(by="id").sort_index(axis=1)
    ans = ans.sort_values(by="id").sort_index(axis=1)
    if (sub["id"].values != ans["id"].values).any():  # type: ignore[union-attr]  # pandas-stubs types ExtensionArray != as bool; it is elementwise
        raise Refused("Expected the submission to have the same 'id' values as the answers, but they differ.")
    return skm.root_mean_squared_error(y_true=sub["value"], y_pred=ans["value"])


NOMAD_TARGETS = ("formation_energy_ev_natom", "bandgap_energy_ev")


def nomad(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean of the two RMSLEs, rows compared by position (no id is read)."""
    for c in NOMAD_TARGETS:
        assert c in ans.columns, f"answers need {c}"
    for c in NOMAD_TARGETS:
        if c not in sub.columns:
            raise Refused(f"Expected '{c}' column in submission")
    if len(sub) != len(ans):
        raise Refused(f"Expected {len(ans)} rows in submission, got {len(sub)}")
    a, b = NOMAD_TARGETS
    return (
        skm.root_mean_squared_log_error(ans[a], sub[a]) + skm.root_mean_squared_log_error(ans[b], sub[b])
    ) / 2


def aptos(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Quadratic kappa; the ids are compared as sets (no row count check)."""
    need(sub, "diagnosis")
    if sub.empty:
        raise Refused("Submission DataFrame should not be empty")
    if set(sub["id_code"]) != set(ans["id_code"]):
        raise Refused("Submission must have the same id_codes as answers")
    sub, ans = sub.sort_values(by="id_code"), ans.sort_values(by="id_code")
    return skm.cohen_kappa_score(sub["diagnosis"].values, ans["diagnosis"].values, weights="quadratic")


PLANT_CLASSES = ("healthy", "multiple_diseases", "rust", "scab")


def plant_pathology(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean column AUC; exactly the id and the four class columns, ids equal once sorted."""
    expected = {"image_id", *PLANT_CLASSES}
    assert set(ans.columns) == expected, f"answers need exactly {sorted(expected)}"
    if len(sub) != len(ans):
        raise Refused(f"Expected submission to have {len(ans)} rows but got {len(sub)}")
    if set(sub.columns) != expected:
        raise Refused(f"Expected submission to have columns {sorted(expected)} but got {list(sub.columns)}")
    sub = sub.sort_values(by="image_id").reset_index(drop=True)
    ans = ans.sort_values(by="image_id").reset_index(drop=True)
    if not all(sub["image_id"] == ans["image_id"]):
        raise Refused("Submission and answers DataFrames must have matching 'image_id' columns.")
    return np.mean([skm.roc_auc_score(y_true=ans[c], y_score=sub[c]) for c in PLANT_CLASSES])


JIGSAW_CLASSES = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]


def jigsaw(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Macro AUC over every non-id column *in file order* (mle-bench does not select the classes),
    rows matched by sorting each file on its id index; answer rows of -1 are skipped."""
    need(sub, "id")
    missing = set(JIGSAW_CLASSES) - set(sub.columns)
    if missing:
        raise Refused(f"Submission is missing the following columns: {missing}")
    assert "id" in ans.columns and set(JIGSAW_CLASSES) <= set(ans.columns), "answers need id and the classes"
    assert len(sub) == len(ans), "Submission and answers have different lengths"
    sub, ans = sub.set_index("id").sort_index(), ans.set_index("id").sort_index()
    keep = ans[JIGSAW_CLASSES].sum(axis=1) >= 0
    ans, sub = ans[keep], sub[keep]
    return skm.roc_auc_score(y_true=ans.to_numpy(), y_score=sub.to_numpy(), average="macro")


RANZCR_CLASSES = (
    "ETT - Abnormal",
    "ETT - Borderline",
    "ETT - Normal",
    "NGT - Abnormal",
    "NGT - Borderline",
    "NGT - Incompletely Imaged",
    "NGT - Normal",
    "CVC - Abnormal",
    "CVC - Borderline",
)  # mle-bench scores these nine of the eleven label columns


def ranzcr(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    for c in RANZCR_CLASSES:
        assert c in ans.columns, f"answers need {c}"
        if c not in sub.columns:
            raise Refused(f"Class {c} is not in the submission.")
    assert len(sub) == len(ans), f"Expected {len(ans)} rows in submission, got {len(sub)}."
    scores = []
    for c in RANZCR_CLASSES:
        y_true, y_score = _auroc_inputs(sub, ans, "StudyInstanceUID", c)
        scores.append(skm.roc_auc_score(y_true, y_score))
    return np.average(scores)


def _int_labels(
    sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str, read: Callable[[Any], int] = int
) -> tuple[list[int], list[int]]:
    """What inaturalist-2019, herbarium-202x and iwildcam-2019 share: row count, both columns, ids
    equal once sorted, then every label through Python's ``int`` (``2.7`` reads as 2; text or a
    blank gives no score); the submission's through ``read``."""
    sub, ans = _id_aligned(sub, ans, id_col, target)
    return [int(y) for y in ans[target]], [read(y) for y in sub[target]]


def _first_label(y: object) -> int:
    """inaturalist-2019's reading of a prediction: an int as it is, else the first of the
    space-separated labels of a text; anything else (a float, a blank) gives no score."""
    if isinstance(y, int):
        return int(y)
    if not isinstance(y, str):
        raise Refused(f"`predicted` value {y!r} is neither an integer nor a text of labels")
    return int(y.split()[0])


def top1_error(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """inaturalist-2019-fgvc6: 1 - accuracy of the first predicted label."""
    y_true, y_pred = _int_labels(sub, ans, "id", "predicted", _first_label)
    return 1 - skm.accuracy_score(y_true=y_true, y_pred=y_pred)


def macro_f1(id_col: str, target: str) -> Callable[[pd.DataFrame, pd.DataFrame], float]:
    """herbarium-2020/2021/2022 and iwildcam-2019: macro F1 of the labels read as ints."""

    def grade(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
        y_true, y_pred = _int_labels(sub, ans, id_col, target)
        return skm.f1_score(y_true=y_true, y_pred=y_pred, average="macro")

    return grade


def plant_seedlings(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Micro F1 of the species names; columns, then row count, then ids equal once sorted."""
    sub, ans = _id_aligned(sub, ans, "file", "species")
    return skm.f1_score(y_true=ans["species"].tolist(), y_pred=sub["species"].tolist(), average="micro")


def label_sets_micro_f1(id_col: str, target: str) -> Callable[[pd.DataFrame, pd.DataFrame], float]:
    """plant-pathology-2021, imet-2020 and facebook-recruiting-iii: micro F1 over each row's
    space-separated labels, the classes being the answers' (a predicted label outside them is
    ignored), a blank prediction the empty set. A column pandas reads as numbers (every row one
    integer label) has no ``.str``: no score."""

    def grade(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
        sub, ans = _id_aligned(sub, ans, id_col, target)
        binarizer = MultiLabelBinarizer(classes=sorted(set(ans[target].str.split().explode())), sparse_output=True)
        y_true = binarizer.fit_transform(ans[target].fillna("").str.split())
        y_pred = binarizer.transform(sub[target].fillna("").str.split())
        return skm.f1_score(y_true=y_true, y_pred=y_pred, average="micro")

    return grade


def _average_precision_at_k(actual: set[str], predicted: list[str], k: int) -> float:
    """AP@k as mle-bench computes it (benhamner's ml_metrics): a label scores once, at its first
    rank among the first ``k``; divided by ``min(len(actual), k)``; an empty ``actual`` scores 0."""
    total, hits = 0.0, 0
    for i, label in enumerate(predicted[:k]):
        if label in actual and label not in predicted[:i]:
            hits += 1
            total += hits / (i + 1)
    return total / min(len(actual), k) if actual else 0.0


def _map_at_k(actual: pd.Series, predicted: pd.Series, k: int) -> float:
    """MAP@k of two aligned label columns as mle-bench reads them: ``astype(str)`` then split on
    single spaces, the answers' into sets (with pandas 3 a blank stays missing: no score); rows
    beyond the shorter column are dropped, as ``zip`` drops them."""
    truth = actual.astype(str).str.split(" ").apply(set)
    ranked = predicted.astype(str).str.split(" ")
    return float(np.mean([_average_precision_at_k(a, p, k) for a, p in zip(truth, ranked)]))


def _exactly(sub: pd.DataFrame, columns: set[str]) -> None:
    """The submission's columns are ``columns``, no more, no fewer."""
    if set(sub.columns) != columns:
        raise Refused(f"Submission must have exactly the columns {sorted(columns)}, got {list(sub.columns)}")


def whale(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """MAP@5 of the whale ids; exactly the columns Image and Id; the row count, the images as sets."""
    _exactly(sub, {"Image", "Id"})
    sub, ans = _set_aligned(sub, ans, "Image", "Id")
    return _map_at_k(ans["Id"], sub["Id"], 5)


def _set_aligned(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both columns, the ids compared as sets, then the row count (so a repeated id paired with a
    missing one is refused); both frames sorted on the id."""
    need(sub, id_col)
    need(sub, target)
    if set(sub[id_col]) != set(ans[id_col]):
        raise Refused(f"Submission and answers have different {id_col} values")
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    return sub.sort_values(id_col), ans.sort_values(id_col)


def hotel_id(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """MAP@5 of the hotel ids."""
    sub, ans = _set_aligned(sub, ans, "image", "hotel_id")
    return _map_at_k(ans["hotel_id"], sub["hotel_id"], 5)


def h_and_m(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """MAP@12 of the articles; exactly the columns customer_id and prediction; the submission's
    customers a superset of the answers' (others dropped), with **no row count check**: a repeated
    customer shifts the rows after it and the surplus is dropped."""
    _exactly(sub, {"customer_id", "prediction"})
    if not set(sub["customer_id"]) >= set(ans["customer_id"]):
        raise Refused("Submission customer_id must be a superset of the answers' customer_id")
    sub = sub[sub["customer_id"].isin(ans["customer_id"])].sort_values("customer_id")
    ans = ans.sort_values("customer_id")
    return _map_at_k(ans["prediction"], sub["prediction"], 12)


ALASKA_TPR = (0.0, 0.4, 1.0)  # the bands of the ROC curve's TPR axis alaska2 weighs
ALASKA_WEIGHTS = (2, 1)


def _with_tpr_points(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ROC curve with each band edge it lacks inserted before the first larger TPR, its FPR
    interpolated linearly (mle-bench's fix to the Kaggle kernel, which let segments straddle bands)."""
    fprs, tprs = fpr.tolist(), tpr.tolist()
    for edge in ALASKA_TPR:
        if edge in tprs:
            continue
        i = next((i for i, t in enumerate(tprs) if t > edge), None)
        if i is not None:
            fprs.insert(i, fprs[i - 1] + (fprs[i] - fprs[i - 1]) * (edge - tprs[i - 1]) / (tprs[i] - tprs[i - 1]))
            tprs.insert(i, edge)
    return np.array(fprs), np.array(tprs)


def alaska_weighted_auc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Each band's area between the curve and the band's floor, closed at FPR 1, weighted and
    normalised by the weighted band heights."""
    fpr, tpr = _with_tpr_points(*skm.roc_curve(y_true, y_score, pos_label=1)[:2])
    total = 0.0
    for lo, hi, weight in zip(ALASKA_TPR, ALASKA_TPR[1:], ALASKA_WEIGHTS):
        band = (lo <= tpr) & (tpr <= hi)
        if band.sum():
            xs, ys = np.concatenate([fpr[band], [1]]), np.concatenate([tpr[band], [hi]]) - lo
            total += skm.auc(xs, ys) * weight
    return total / float(np.dot(np.diff(ALASKA_TPR), ALASKA_WEIGHTS))


def alaska2(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Weighted AUC (TPR below 0.4 counts twice); row count, columns, ids equal once sorted, then
    ``Label`` read as floats with no blank."""
    sub, ans = _id_aligned(sub, ans, "Id", "Label")
    try:
        predicted = sub["Label"].astype(float)
    except ValueError:
        raise Refused("Labels in submission must be numbers") from None
    if predicted.isnull().any():
        raise Refused("Submission cannot contain NaNs")
    return alaska_weighted_auc(ans["Label"].astype(float).to_numpy(), predicted.to_numpy())


def probabilistic_f1(labels: np.ndarray, predictions: np.ndarray) -> float:
    """Kaggle's probabilistic F1 (beta 1) as mle-bench computes it, in Python scalars: each
    prediction clipped by ``min(max(p, 0), 1)`` (outside [0, 1] it becomes the Python int 0 or 1)
    and summed from 0 over the positive and the negative rows. So when every prediction is below 0
    the sums stay Python ints and 0 / 0 raises (no score), while numpy zeros give NaN: a score of 0."""
    clipped = [min(max(p, 0), 1) for p in predictions]
    ctp = sum(p for p, y in zip(clipped, labels) if y)
    cfp = sum(p for p, y in zip(clipped, labels) if not y)
    precision, recall = ctp / (ctp + cfp), ctp / sum(1 for y in labels if y)
    if precision > 0 and recall > 0:
        return 2 * (precision * recall) / (precision + recall)
    return 0.0


def rsna_breast(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Probabilistic F1 of ``cancer``; columns, row count, ids equal once sorted."""
    sub, ans = _id_aligned(sub, ans, "prediction_id", "cancer")
    return probabilistic_f1(ans["cancer"].to_numpy(), sub["cancer"].to_numpy())


HMS_CLASSES = ["seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"]
KL_EPSILON = 1e-15  # Kaggle's KL module clips predictions to [eps, 1 - eps]


def _kaggle_probabilities(frame: pd.DataFrame) -> None:
    """Kaggle's ``verify_valid_probabilities`` on every non-id submission column, extras included:
    numeric, within [0, 1], each row summing to one by ``np.allclose``."""
    if not pd.api.types.is_numeric_dtype(frame.values):
        raise Refused("All target values in submission must be numeric")
    if frame.min().min() < 0 or frame.max().max() > 1:
        raise Refused("All target values in submission must be within [0, 1]")
    if not np.allclose(frame.sum(axis=1), 1):
        raise Refused("Target values in submission do not add to one within all rows")


def hms(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Row-averaged KL divergence of the predictions from the answers' vote shares (votes divided
    by their row sum; a zero share adds nothing). mle-bench's checks: the columns, the row count,
    row sums of the six classes equal to 1 at 5 places, the ids as sets; then Kaggle's module checks
    all the submission's other columns (so an extra column breaks the row sums)."""
    need(sub, "eeg_id")
    for c in HMS_CLASSES:
        need(sub, c)
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    if not sub[HMS_CLASSES].sum(axis=1).apply(lambda x: round(x, 5) == 1).all():
        raise Refused("Submission probabilities must add to 1 for each row")
    if set(sub["eeg_id"]) != set(ans["eeg_id"]):
        raise Refused("Submission and answers must have the same eeg_ids")
    sub = sub.sort_values("eeg_id").reset_index(drop=True).drop(columns="eeg_id")
    votes = ans.sort_values("eeg_id").reset_index(drop=True)[HMS_CLASSES]
    _kaggle_probabilities(sub)
    truth = votes.div(votes.sum(axis=1), axis=0).to_numpy(dtype=float)
    predicted = np.clip(sub[HMS_CLASSES].to_numpy(dtype=float), KL_EPSILON, 1 - KL_EPSILON)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(truth != 0, truth * np.log(truth / predicted), 0.0)
    return float(np.average(terms.sum(axis=1)))


def freesound(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Label-weighted label-ranking average precision (lwlrap): scikit-learn's LRAP, each row
    weighted by its number of true labels (rows with none left out). The submission's columns
    are exactly ``fname`` then the 80 classes in the answers' order; values read by
    ``pd.to_numeric``."""
    classes = list(ans.columns[1:])
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    if sub.columns[0] != "fname":
        raise Refused("Submission's first column must be fname")
    if list(sub.columns[1:]) != classes:
        raise Refused("Submission must have exactly the 80 class columns, in the sample's order")
    sub, ans = sorted_ids_match(sub, ans, "fname")
    try:
        scores = sub[classes].apply(pd.to_numeric).to_numpy()
    except (ValueError, TypeError) as e:
        raise Refused(f"Submission values must be numbers: {e}") from None
    truth = ans[classes].apply(pd.to_numeric).to_numpy() > 0
    weights = truth.sum(axis=1)
    scored = weights > 0
    return skm.label_ranking_average_precision_score(truth[scored], scores[scored], sample_weight=weights[scored])


def _last_three_weeks(ans: pd.DataFrame) -> pd.DataFrame:
    """The answers osic scores: rows with an FVC, each patient's three latest weeks (the number
    after the last ``_`` of Patient_Week)."""
    ans = ans.dropna(subset=["FVC"])
    week = ans["Patient_Week"].apply(lambda x: int(x.split("_")[-1]))
    return ans.assign(week=week).sort_values("week").groupby("Patient").tail(3)


def osic(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Modified Laplace log likelihood over each patient's last three weeks: the FVC error capped
    at 1000, the Confidence floored at 70 (a blank one read as 0). Every submitted Patient_Week
    must be in the answers; other weeks are ignored and a missing week is simply not scored (no
    row count check); FVC and Confidence must be numeric columns."""
    for c in ("Patient_Week", "FVC", "Confidence"):
        need(sub, c)
    unknown = set(sub["Patient_Week"]) - set(ans["Patient_Week"])
    if unknown:
        raise Refused(f"Patient_Week {sorted(map(str, unknown))[:3]} in submission does not exist in answers")
    for c in ("FVC", "Confidence"):
        if not pd.api.types.is_numeric_dtype(sub[c]):
            raise Refused(f"{c} column in submission must be numeric")
    last = _last_three_weeks(ans)
    sub = sub[sub["Patient_Week"].isin(last["Patient_Week"])].sort_values("Patient_Week")
    last = last[last["Patient_Week"].isin(sub["Patient_Week"])].sort_values("Patient_Week")
    sd = np.maximum(sub["Confidence"].fillna(0).to_numpy(), 70)
    delta = np.minimum(np.abs(last["FVC"].to_numpy() - sub["FVC"].to_numpy()), 1000)
    return float(np.mean(-np.sqrt(2) * delta / sd - np.log(np.sqrt(2) * sd)))


ICECUBE_ANGLES = ["azimuth", "zenith"]


def icecube(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean angular distance between the directions; exactly event_id and the two angles, both
    numpy numeric columns with every value finite (a blank is not), the row count, the ids as sets."""
    _exactly(sub, {"event_id", *ICECUBE_ANGLES})
    for c in ICECUBE_ANGLES:
        dtype = sub[c].dtype
        if not (isinstance(dtype, np.dtype) and np.issubdtype(dtype, np.number)) or not np.isfinite(sub[c]).all():
            raise Refused(f"Submission's {c} must be finite numbers")
    sub, ans = _set_aligned(sub, ans, "event_id", "azimuth")
    return mean_angular_error(ans[ICECUBE_ANGLES].to_numpy(), sub[ICECUBE_ANGLES].to_numpy())


STANFORD_SCORED = ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"]
STANFORD_REQUIRED = ["id_seqpos", *STANFORD_SCORED, "deg_pH10", "deg_50C"]  # the last two never scored


def stanford(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean column RMSE of the three scored targets on the rows the answers ``keep``. Rows are
    sorted on id_seqpos and compared position by position, but the mask is applied by row label,
    that is by each file's original row order: a submission ordered unlike the answers is masked
    by other rows' flags (mle-bench's behaviour, kept)."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    missing = set(STANFORD_REQUIRED) - set(sub.columns)
    if missing:
        raise Refused(f"Submission is missing the columns {sorted(missing)}")
    sub, ans = sorted_ids_match(sub[STANFORD_REQUIRED], ans, "id_seqpos")
    keep = ans["keep"]
    sub, ans = sub[keep], ans[keep]
    return float(np.mean([skm.root_mean_squared_error(ans[c], sub[c]) for c in STANFORD_SCORED]))


SMARTPHONE_COORDINATES = ["LatitudeDegrees", "LongitudeDegrees"]


def smartphone(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean over the answers' trips of the mean of the 50th and 95th percentile haversine error.
    A trip's rows are compared **in file order**: UnixTimeMillis is required but never read, so
    rows shuffled within a trip are scored against other epochs. Each trip needs exactly as many
    rows as in the answers."""
    for c in ("tripId", "UnixTimeMillis", *SMARTPHONE_COORDINATES):
        need(sub, c)
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    scores = []
    for trip in ans["tripId"].unique():
        truth, predicted = ans[ans["tripId"] == trip], sub[sub["tripId"] == trip]
        if len(predicted) != len(truth):
            raise Refused(f"Submission has {len(predicted)} rows for trip {trip}, the answers {len(truth)}")
        one_trip = np.zeros(len(truth))
        scores.append(trip_haversine_p50_p95(
            truth[SMARTPHONE_COORDINATES].to_numpy(), predicted[SMARTPHONE_COORDINATES].to_numpy(), one_trip
        ))
    return float(np.mean(scores))


def pawpularity(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """RMSE; every prediction within [1, 100] (a blank is not); no row count check, so a length
    mismatch fails at the id comparison."""
    assert ans["Pawpularity"].between(1, 100).all(), "answers' Pawpularity must be within [1, 100]"
    need(sub, "Id")
    need(sub, "Pawpularity")
    if not sub["Pawpularity"].between(1, 100).all():
        raise Refused("Pawpularity in submission should be between 1 and 100")
    sub, ans = sorted_ids_match(sub, ans, "Id")
    return skm.root_mean_squared_error(y_true=ans["Pawpularity"].to_numpy(), y_pred=sub["Pawpularity"].to_numpy())


S3E18_CLASSES = ["EC1", "EC2"]  # mle-bench scores these two of the answers' six EC columns


def s3e18(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Macro AUC over EC1 and EC2, ids equal once sorted."""
    need(sub, "id")
    for c in S3E18_CLASSES:
        need(sub, c)
    if len(sub) != len(ans):
        raise Refused("Submission must be the same length as the answers.")
    sub, ans = sorted_ids_match(sub, ans, "id")
    return skm.roc_auc_score(ans[S3E18_CLASSES].to_numpy(), sub[S3E18_CLASSES].to_numpy(), average="macro")


def _merged_on_ids(sub: pd.DataFrame, ans: pd.DataFrame, id_col: str, target: str) -> pd.DataFrame:
    """The answers joined with the submission's ``target`` by an inner merge on ``id_col``
    (``<target>_true``, ``<target>_pred``), after the ids compared as sets: a repeated id counts twice."""
    need(sub, target)
    need(sub, id_col)
    if set(sub[id_col]) != set(ans[id_col]):
        raise Refused(f"Submission must have the same {id_col}s as the answers")
    return ans.merge(sub[[id_col, target]], on=id_col, suffixes=("_true", "_pred"))


def volcanic(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """MAE rounded to a whole number."""
    merged = _merged_on_ids(sub, ans, "segment_id", "time_to_eruption")
    return int(round(skm.mean_absolute_error(merged["time_to_eruption_true"], merged["time_to_eruption_pred"])))


def champs(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean over the answers' coupling ``type`` of the log MAE. A type predicted exactly gives
    log 0 = -inf, which mle-bench reports and wmrl refuses as a score no reward can be made of."""
    merged = _merged_on_ids(sub, ans, "id", "scalar_coupling_constant")
    return np.mean([
        np.log(skm.mean_absolute_error(group["scalar_coupling_constant_true"], group["scalar_coupling_constant_pred"]))
        for _, group in merged.groupby("type")
    ])


def google_quest(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean Spearman over the 30 target columns (the answers' columns but the id); the submission
    holds exactly the id and those; rows sorted on the id with **no id check**, so a wrong id
    misaligns rows, and text in a column is ranked as scipy ranks it."""
    classes = [c for c in ans.columns if c != "qa_id"]
    need(sub, "qa_id")
    missing = set(classes) - set(sub.columns)
    if missing:
        raise Refused(f"Submission is missing the following columns: {sorted(missing)}")
    if len(sub.columns) != len(classes) + 1:
        raise Refused(f"Submission has {len(sub.columns) - 1} columns besides qa_id, expected {len(classes)}")
    if len(sub) != len(ans):
        raise Refused("Submission and answers have different lengths")
    sub, ans = sub.sort_values("qa_id"), ans.sort_values("qa_id")
    return np.mean([spearmanr(sub[c], ans[c]).correlation for c in classes])


def patent_pearson(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Pearson's r of ``score`` (constant predictions give NaN: no medal compares with it)."""
    sub, ans = _id_aligned(sub, ans, "id", "score")
    return float(pearsonr(ans["score"].to_numpy(), sub["score"].to_numpy())[0])


def ventilator(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """MAE of ``pressure`` over the rows the answers mark inspiratory (``u_out`` 0; the expiratory
    phase is not scored), after the row count and the ids equal once sorted."""
    sub, ans = _id_aligned(sub, ans, "id", "pressure")
    ans = ans[ans["u_out"] == 0]
    sub = sub[sub["id"].isin(ans["id"])]
    return skm.mean_absolute_error(ans["pressure"].to_numpy(), sub["pressure"].to_numpy())


def essay_qwk(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Quadratic kappa of ``score``; no row count check (a length mismatch fails at the ids)."""
    need(sub, "score")
    need(sub, "essay_id")
    if sub.empty:
        raise Refused("Submission DataFrame should not be empty")
    sub, ans = sorted_ids_match(sub, ans, "essay_id")
    return skm.cohen_kappa_score(sub["score"].to_numpy(), ans["score"].to_numpy(), weights="quadratic")


def nfl_mcc(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Matthews correlation of ``contact``."""
    sub, ans = _set_aligned(sub, ans, "contact_id", "contact")
    return skm.matthews_corrcoef(ans["contact"], sub["contact"])


LMSYS_CLASSES = ["winner_model_a", "winner_model_b", "winner_tie"]


def lmsys(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """One-hot log loss over the three classes; ranges, then row sums rounded to 6 places equal to 1."""
    required = ["id", *LMSYS_CLASSES]
    for c in required:
        need(sub, c)
    if len(sub) != len(ans):
        raise Refused(f"Submission must have {len(ans)} rows, but has {len(sub)} rows.")
    probs = sub[LMSYS_CLASSES]
    if not ((probs >= 0) & (probs <= 1)).all().all():
        raise Refused("All values in submission DataFrame must be between 0 and 1.")
    if not probs.sum(axis=1).round(6).eq(1).all():
        raise Refused("Each row in submission DataFrame must sum to 1.")
    sub, ans = sorted_ids_match(sub[required], ans[required], "id")
    return _one_hot_log_loss(sub, ans, "id")



JIGSAW_IDENTITIES = [
    "male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim", "black", "white",
    "psychiatric_or_mental_illness",
]
BIAS_POWER, BIAS_WEIGHT = -5, 0.25  # the power mean over identities, and each of the four terms' weight


def _binary(values: pd.Series) -> pd.Series:
    """1 where ``x >= 0.5``, else 0, value by value (a blank is 0; text no score)."""
    return values.apply(lambda x: 1 if x >= 0.5 else 0)


def _auc_where(truth: pd.DataFrame, predicted: pd.DataFrame, rows: pd.Series) -> float:
    """AUC on the answer rows ``rows`` and the submission rows with their ids (both sorted on id)."""
    picked = truth[rows]
    return skm.roc_auc_score(picked["toxicity"], predicted[predicted["id"].isin(picked["id"])]["toxicity"])


def _bias_subsets(toxic: pd.Series, member: pd.Series) -> tuple[pd.Series, pd.Series, pd.Series]:
    """An identity's three subsets: its members (subgroup); its non-toxic members with the toxic
    rest (BPSN, background positive subgroup negative); its toxic members with the non-toxic rest (BNSP)."""
    return member, (~toxic & member) | (toxic & ~member), (toxic & member) | (~toxic & ~member)


def jigsaw_bias(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Jigsaw's bias AUC on predictions and answers cut at 0.5 (so only the side of 0.5 counts):
    0.25 x (overall AUC + the power -5 means over the nine identities of the subgroup, BPSN and
    BNSP AUCs). No row count check (ids of another length fail numpy's comparison); a column named
    ``toxicity`` stands in for ``prediction``; any subset with one class only is no score."""
    need(sub, "id")
    if "prediction" not in sub.columns and "toxicity" not in sub.columns:
        raise Refused("Submission must have a `prediction` column")
    sub, ans = sorted_ids_match(sub, ans, "id")
    sub = sub.rename(columns={"prediction": "toxicity"})
    sub = sub.assign(toxicity=_binary(sub["toxicity"]))
    ans = ans.assign(toxicity=_binary(ans["toxicity"]), **{c: _binary(ans[c]) for c in JIGSAW_IDENTITIES})
    toxic = ans["toxicity"] == 1
    per_identity = [
        [_auc_where(ans, sub, rows) for rows in _bias_subsets(toxic, ans[c] == 1)] for c in JIGSAW_IDENTITIES
    ]
    means = [
        (sum(aucs[k] ** BIAS_POWER for aucs in per_identity) / len(JIGSAW_IDENTITIES)) ** (1 / BIAS_POWER)
        for k in range(3)
    ]
    overall = skm.roc_auc_score(ans["toxicity"], sub["toxicity"])
    return BIAS_WEIGHT * overall + sum(BIAS_WEIGHT * m for m in means)


RSNA_2022_TARGETS = ["patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]
RSNA_2022_WEIGHTS = {  # per target, for a negative and a positive answer
    0: np.array([7, 1, 1, 1, 1, 1, 1, 1], dtype=np.float32),
    1: np.array([14, 2, 2, 2, 2, 2, 2, 2], dtype=np.float32),
}


def _per_study(frame: pd.DataFrame) -> np.ndarray:
    """The melted ``<study>_<target>`` rows back to one row per study, the targets in order."""
    parts = frame["row_id"].str.split("_", n=1, expand=True)
    wide = frame.assign(study=parts[0], target=parts[1]).pivot(index="study", columns="target", values="fractured")
    return wide.sort_index()[RSNA_2022_TARGETS].to_numpy()


def rsna_2022(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Weighted log loss per study (a positive answer weighs twice, patient_overall seven times a
    vertebra), predictions clipped to [1e-15, 1 - 1e-15]. ``fractured`` within [0, 1] with no blank;
    no row count check (ids of another length fail pandas' comparison)."""
    need(sub, "row_id")
    need(sub, "fractured")
    if not sub["fractured"].between(0, 1).all():
        raise Refused("Submission `fractured` values must be between 0 and 1.")
    if sub["fractured"].isnull().any():
        raise Refused("Submission `fractured` values must not be missing.")
    sub, ans = sorted_ids_match(sub, ans, "row_id")
    y_true, y_pred = _per_study(ans), np.clip(_per_study(sub), 1e-15, 1 - 1e-15)
    loss = -(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred))
    weights = y_true * RSNA_2022_WEIGHTS[1] + (1 - y_true) * RSNA_2022_WEIGHTS[0]
    return np.mean(np.sum(loss * weights, axis=1) / weights.sum(axis=1))


RULES: dict[str, Rule] = {
    "aerial-cactus-identification": Rule(auroc("id", "has_cactus"), "roc_auc", True),
    "detecting-insults-in-social-commentary": Rule(auroc("Comment", "Insult"), "roc_auc", True),
    "histopathologic-cancer-detection": Rule(auroc("id", "label"), "roc_auc", True),
    "mlsp-2013-birds": Rule(auroc("Id", "Probability"), "roc_auc", True),
    "random-acts-of-pizza": Rule(auroc("request_id", "requester_received_pizza"), "roc_auc", True),
    "siim-isic-melanoma-classification": Rule(auroc("image_name", "target"), "roc_auc", True),
    "tabular-playground-series-may-2022": Rule(auroc("id", "target"), "roc_auc", True),
    "the-icml-2013-whale-challenge-right-whale-redux": Rule(auroc("clip", "probability"), "roc_auc", True),
    "rsna-miccai-brain-tumor-radiogenomic-classification": Rule(auroc("BraTS21ID", "MGMT_value"), "roc_auc", True),
    "seti-breakthrough-listen": Rule(auroc("id", "target"), "roc_auc", True),
    "spaceship-titanic": Rule(accuracy("PassengerId", "Transported"), "accuracy", True),
    "cassava-leaf-disease-classification": Rule(accuracy("image_id", "label"), "accuracy", True),
    "cdiscount-image-classification-challenge": Rule(accuracy("_id", "category_id"), "accuracy", True),
    "iwildcam-2020-fgvc7": Rule(accuracy("Id", "Category"), "accuracy", True),
    "ml2021spring-hw2": Rule(accuracy("Id", "ClassId"), "accuracy", True),
    "movie-review-sentiment-analysis-kernels-only": Rule(accuracy("PhraseId", "Sentiment"), "accuracy", True),
    "tensorflow-speech-recognition-challenge": Rule(accuracy("fname", "label"), "accuracy", True),
    "tabular-playground-series-dec-2021": Rule(accuracy("Id", "Cover_Type"), "accuracy", True),
    "new-york-city-taxi-fare-prediction": Rule(taxi_rmse, "rmse", False),
    "dogs-vs-cats-redux-kernels-edition": Rule(binary_log_loss("id", "label", True), "log_loss", False),
    "spooky-author-identification": Rule(spooky, "log_loss", False),
    "dog-breed-identification": Rule(dog_breed, "log_loss", False),
    "leaf-classification": Rule(leaf, "log_loss", False),
    "denoising-dirty-documents": Rule(denoising, "rmse", False),
    "nomad2018-predict-transparent-conductors": Rule(nomad, "rmsle", False),
    "aptos2019-blindness-detection": Rule(aptos, "qwk", True),
    "plant-pathology-2020-fgvc7": Rule(plant_pathology, "roc_auc", True),
    "jigsaw-toxic-comment-classification-challenge": Rule(jigsaw, "roc_auc", True),
    "ranzcr-clip-catheter-line-classification": Rule(ranzcr, "roc_auc", True),
    "paddy-disease-classification": Rule(accuracy("image_id", "label", blank=""), "accuracy", True),
    "inaturalist-2019-fgvc6": Rule(top1_error, "top1_error", False),
    "herbarium-2020-fgvc7": Rule(macro_f1("Id", "Predicted"), "macro_f1", True),
    "herbarium-2021-fgvc8": Rule(macro_f1("Id", "Predicted"), "macro_f1", True),
    "herbarium-2022-fgvc9": Rule(macro_f1("Id", "Predicted"), "macro_f1", True),
    "iwildcam-2019-fgvc6": Rule(macro_f1("Id", "Category"), "macro_f1", True),
    "plant-seedlings-classification": Rule(plant_seedlings, "micro_f1", True),
    "petfinder-pawpularity-score": Rule(pawpularity, "rmse", False),
    "playground-series-s3e18": Rule(s3e18, "roc_auc", True),
    "predict-volcanic-eruptions-ingv-oe": Rule(volcanic, "mae", False),
    "us-patent-phrase-to-phrase-matching": Rule(patent_pearson, "pearson", True),
    "statoil-iceberg-classifier-challenge": Rule(binary_log_loss("id", "is_iceberg", False), "log_loss", False),
    "learning-agency-lab-automated-essay-scoring-2": Rule(essay_qwk, "qwk", True),
    "nfl-player-contact-detection": Rule(nfl_mcc, "mcc", True),
    "lmsys-chatbot-arena": Rule(lmsys, "log_loss", False),
    "ventilator-pressure-prediction": Rule(ventilator, "mae", False),
    "champs-scalar-coupling": Rule(champs, "group_log_mae", False),
    "alaska2-image-steganalysis": Rule(alaska2, "tpr_weighted_auc", True),
    "rsna-breast-cancer-detection": Rule(rsna_breast, "f1", True),
    "hms-harmful-brain-activity-classification": Rule(hms, "kl_divergence", False),
    "freesound-audio-tagging-2019": Rule(freesound, "lwlrap", True),
    "osic-pulmonary-fibrosis-progression": Rule(osic, "laplace_log_likelihood", True),
    "icecube-neutrinos-in-deep-ice": Rule(icecube, "mean_angular_error", False),
    "stanford-covid-vaccine": Rule(stanford, "mcrmse", False),
    "smartphone-decimeter-2022": Rule(smartphone, "trip_haversine_p50_p95", False),
    "plant-pathology-2021-fgvc8": Rule(label_sets_micro_f1("image", "labels"), "multilabel_micro_f1", True),
    "imet-2020-fgvc7": Rule(label_sets_micro_f1("id", "attribute_ids"), "multilabel_micro_f1", True),
    "facebook-recruiting-iii-keyword-extraction": Rule(label_sets_micro_f1("Id", "Tags"), "multilabel_micro_f1", True),
    "whale-categorization-playground": Rule(whale, "map_at_k", True),
    "hotel-id-2021-fgvc8": Rule(hotel_id, "map_at_k", True),
    "h-and-m-personalized-fashion-recommendations": Rule(h_and_m, "map_at_k", True),
    "google-quest-challenge": Rule(google_quest, "mean_columnwise_spearman", True),
    "invasive-species-monitoring": Rule(auroc("name", "invasive"), "roc_auc", True),
    "text-normalization-challenge-english-language": Rule(text_normalization, "accuracy", True),
    "text-normalization-challenge-russian-language": Rule(text_normalization, "accuracy", True),
    "jigsaw-unintended-bias-in-toxicity-classification": Rule(jigsaw_bias, "jigsaw_bias_auc", True),
    "rsna-2022-cervical-spine-fracture-detection": Rule(rsna_2022, "weighted_log_loss", False),
    **SEQUENCE_RULES,
    **MASK_RULES,
    **BOX_RULES,
    **COCO_RULES,
    **QA_RULES,
}
