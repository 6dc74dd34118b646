"""mle-bench's grading rules for competitions scored on run-length encoded masks.

tgs-salt-identification-challenge (mean over images of the IoU precision at 10 thresholds),
hubmap-kidney-segmentation (mean Dice per image), google-research-identify-contrails-reduce-global-warming
(one Dice over every pixel of the test set), vesuvius-challenge-ink-detection (mean F0.5 per
fragment, rows matched by position) and uw-madison-gi-tract-image-segmentation (0.4 x Dice + 0.6 x
(1 - Hausdorff distance) of each case-day's 3-D mask, rows matched by position), each as that
competition's ``grade.py`` in mle-bench 783b15a computes it (written here from reading those
files; nothing copied). They share mle-bench's ``rle_decode`` (:func:`rle_mask`), which decides
most verdicts: a mask is text (a blank is not, unless the competition fills it with ``""``), its
numbers Python ints, starts sorted and positive, lengths positive, runs not overlapping; a run past
the image's end is cut off there, not refused; an odd count of numbers pairs as numpy broadcasts
the lengths onto the starts (see :func:`_broadcast`).
:data:`MASK_RULES` joins ``mlebench_rules.RULES``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial.distance import directed_hausdorff
from sklearn import metrics as skm

from wmrl_envs.mle.mlebench_checks import Refused, Rule, need, sorted_ids_match


def rle_mask(rle: object, height: int, width: int) -> np.ndarray:
    """The (height, width) boolean mask of ``rle``: 1-based "start length" pairs numbering pixels
    down each column, then across (column-major)."""
    if not isinstance(rle, str):
        raise Refused(f"A run-length mask must be text, got {type(rle).__name__} {rle!r}")
    flat = np.zeros(height * width, dtype=bool)
    numbers = [int(token) for token in rle.split()]  # "5.0" or "-" raises: no score
    starts, lengths = numbers[0::2], numbers[1::2]
    if starts != sorted(starts):
        raise Refused(f"The runs of a mask must be sorted by start: {rle[:60]!r}")
    if any(n <= 0 for n in starts) or any(n <= 0 for n in lengths):
        raise Refused(f"A mask's starts and lengths must be positive integers: {rle[:60]!r}")
    for start, length in zip(starts, _broadcast(lengths, len(starts), rle)):
        if flat[start - 1 : start - 1 + length].any():
            raise Refused(f"A mask's runs must not overlap: {rle[:60]!r}")
        flat[start - 1 : start - 1 + length] = True
    return flat.reshape((width, height)).T


def _broadcast(lengths: list[int], runs: int, rle: str) -> list[int]:
    """The lengths of the ``runs`` runs as mle-bench pairs them (numpy adds the lengths to the
    starts): one each; a single length for every start (``"5 3 20"`` is two runs of 3); no
    length for a single start (no run); any other count raises (no score)."""
    if len(lengths) in (runs, 0):
        return lengths
    if len(lengths) == 1:
        return lengths * runs
    raise Refused(f"A mask has {runs} starts but {len(lengths)} lengths: {rle[:60]!r}")


def dice(predicted: np.ndarray, truth: np.ndarray, both_empty: float) -> float:
    """mle-bench's ``dice_coefficient``: 2|X and Y| / (|X| + |Y|), ``both_empty`` when neither has a pixel."""
    if predicted.shape != truth.shape:
        raise Refused(f"A predicted mask of shape {predicted.shape} against an answer of shape {truth.shape}")
    total = np.sum(predicted) + np.sum(truth)
    return both_empty if total == 0 else 2 * np.sum(predicted * truth) / total


def hubmap(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean Dice per image (both empty: 1); ids compared as sets after the row count, then sorted;
    a blank mask is empty."""
    need(sub, "id")
    need(sub, "predicted")
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    if set(sub["id"]) != set(ans["id"]):
        raise Refused("Submission and answers have different id values")
    sub, ans = sub.sort_values("id"), ans.sort_values("id")
    sizes = list(zip(ans["height_pixels"].tolist(), ans["width_pixels"].tolist()))
    predicted = [rle_mask(rle, h, w) for rle, (h, w) in zip(sub["predicted"].fillna("").tolist(), sizes)]
    truth = [rle_mask(rle, h, w) for rle, (h, w) in zip(ans["encoding"], sizes)]
    return float(np.mean([dice(p, t, both_empty=1.0) for p, t in zip(predicted, truth)]))


CONTRAILS_ANSWERS = {"record_id", "encoded_pixels", "height", "width"}


def contrails(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """One Dice over all pixels of all records (none anywhere: NaN, refused); ``-`` is the empty
    mask, a blank is no score; extra columns ignored, ids equal once sorted."""
    assert set(ans.columns) == CONTRAILS_ANSWERS, f"answers need exactly {sorted(CONTRAILS_ANSWERS)}"
    need(sub, "record_id")
    need(sub, "encoded_pixels")
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    sub, ans = sorted_ids_match(sub, ans, "record_id")
    sizes = [(int(h), int(w)) for h, w in zip(ans["height"].values, ans["width"].values)]
    truth = np.array([rle_mask(rle, h, w) for rle, (h, w) in zip(ans["encoded_pixels"].replace("-", "").values, sizes)])
    predicted = np.array([rle_mask(rle, h, w) for rle, (h, w) in zip(sub["encoded_pixels"].replace("-", "").values, sizes)])
    return dice(predicted.ravel(), truth.ravel(), both_empty=np.nan)


def _vesuvius_row(submitted: pd.Series, answer: pd.Series) -> float:
    """F0.5 of one fragment's pixels. Exactly ``Id`` and ``Predicted``; the Id the answers' row's;
    the mask numbers pixels across each row, then down (decoded transposed)."""
    if len(submitted) != 2 or not {"Id", "Predicted"} <= set(submitted.index):
        raise Refused(f"Submission must have exactly the columns Id and Predicted, got {list(submitted.index)}")
    if not submitted["Id"] == answer["Id"]:
        raise Refused(f"Submission Id {submitted['Id']!r} where the answers have {answer['Id']!r} (rows match by position)")
    if not isinstance(submitted["Predicted"], str):
        raise Refused(f"Submission's Predicted must be text, got {type(submitted['Predicted']).__name__}")
    width, height = int(answer["width"]), int(answer["height"])
    predicted = rle_mask(submitted["Predicted"], width, height).T
    truth = rle_mask(answer["Predicted"], width, height).T
    return skm.fbeta_score(y_true=truth.flatten(), y_pred=predicted.flatten(), beta=0.5)


def vesuvius(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean F0.5 over fragments, rows compared **by position** (a shuffled file is no score)."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    return float(np.mean([_vesuvius_row(s, a) for (_, s), (_, a) in zip(sub.iterrows(), ans.iterrows())]))


UW_DICE_WEIGHT, UW_HAUSDORFF_WEIGHT = 0.4, 0.6


def _case_days(masks: list[np.ndarray], ids: pd.Series) -> list[np.ndarray]:
    """Each case-day's 3-D mask, case-days in sorted order: the rows of a slice joined by OR, the
    slices (``<case>_<day>_slice_<n>``) stacked in sorted order."""
    slices: dict[str, list[np.ndarray]] = {}
    for mask, slice_id in sorted(zip(masks, ids), key=lambda pair: pair[1]):
        slices.setdefault(slice_id, []).append(mask)
    days: dict[str, list[np.ndarray]] = {}
    for slice_id, joined in slices.items():
        days.setdefault(slice_id.split("_slice_")[0], []).append(np.logical_or.reduce(joined).astype(np.uint8))
    return [np.stack(day, axis=0) for day in days.values()]


def hausdorff(predicted: np.ndarray, truth: np.ndarray) -> float:
    """mle-bench's symmetric Hausdorff distance of two 3-D masks, coordinates scaled by the
    answer's shape and the distance by the unit cube's diagonal. Both empty: NaN (left out of the
    mean); equal: 0; one empty, or the prediction over 10 times the answer's size: 1."""
    if np.sum(predicted) == 0 and np.sum(truth) == 0:
        return np.nan
    if np.array_equal(predicted, truth):
        return 0
    if np.sum(predicted) == 0 or np.sum(truth) == 0 or predicted.sum() > 10 * truth.sum():
        return 1
    p, t = np.argwhere(predicted) / truth.shape, np.argwhere(truth) / truth.shape
    return max(directed_hausdorff(t, p)[0], directed_hausdorff(p, t)[0]) / np.sqrt(3)


def uw_madison(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """0.4 x mean Dice of each row's 2-D mask (both empty rows left out) + 0.6 x (1 - mean
    Hausdorff distance of each case-day). Rows are compared **by position** with no id or row
    count check: files of other lengths are cut to the shorter (``zip``); a blank mask is empty."""
    missing = {"id", "class", "predicted"} - set(sub.columns)
    if missing:
        raise Refused(f"Submission must have columns id, class, predicted (missing {sorted(missing)})")
    sizes = list(zip(ans["image_height"].astype(int).tolist(), ans["image_width"].astype(int).tolist()))
    predicted = [rle_mask(rle, h, w) for rle, (h, w) in zip(sub["predicted"].fillna("").to_list(), sizes)]
    truth = [rle_mask(rle, h, w) for rle, (h, w) in zip(ans["predicted"].fillna("").to_list(), sizes)]
    dice_mean = np.nanmean([dice(p, t, both_empty=np.nan) for p, t in zip(predicted, truth)])
    days = zip(_case_days(predicted, sub["id"]), _case_days(truth, ans["id"]))
    hausdorff_mean = np.nanmean([hausdorff(p, t) for p, t in days])
    return float(UW_DICE_WEIGHT * dice_mean + UW_HAUSDORFF_WEIGHT * (1 - hausdorff_mean))


TGS_SIZE = 101  # every tgs-salt image is 101 x 101
TGS_COLUMNS = {"id", "rle_mask"}
TGS_THRESHOLDS = np.arange(0.5, 1.0, 0.05)


def _tgs_image_score(truth: np.ndarray, predicted: np.ndarray) -> float:
    """mle-bench's ``iou_metric`` of one image: 1 if both masks are empty, 0 for salt predicted on
    an empty answer, else the share of the thresholds 0.5, 0.55, ..., 0.95 that the salt IoU
    passes. The IoU is read off two-bin numpy histograms whose bins span each mask's own values,
    so an empty (or full) prediction lands in the salt bin: a blank prediction scores the answer's
    salt share of the image as its IoU (mle-bench's behaviour, kept)."""
    if np.sum(truth) == 0:
        return 1.0 if np.sum(predicted) == 0 else 0.0
    both = np.histogram2d(truth.flatten(), predicted.flatten(), bins=(2, 2))[0]
    union = np.histogram(truth, bins=2)[0][1] + np.histogram(predicted, bins=2)[0][1] - both[1, 1]
    iou = both[1, 1] / (union if union != 0 else 1e-9)
    return float(np.mean([1.0 if iou > t else 0.0 for t in TGS_THRESHOLDS]))


def tgs_salt(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean over images of the IoU precision above. Exactly ``id`` and ``rle_mask``; the row
    count; after a blank reads as ``""``, every cell text (a number id is not); ids equal once
    sorted. mle-bench's grade.py checks the cells with ``DataFrame.applymap``, which pandas 3
    removed, so mle-bench under pandas 3 scores no submission at all; this rule grades as it does
    under pandas 2 (``applymap`` being ``map``), and so were its reference verdicts computed."""
    assert set(ans.columns) == TGS_COLUMNS, f"answers need exactly {sorted(TGS_COLUMNS)}"
    if set(sub.columns) != TGS_COLUMNS:
        raise Refused(f"Submission must have exactly the columns id and rle_mask, got {list(sub.columns)}")
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    sub, ans = sub.fillna(""), ans.fillna("")
    if not sub.map(lambda cell: isinstance(cell, str)).to_numpy().all():
        raise Refused("Every id and rle_mask of the submission must be text")
    sub, ans = sorted_ids_match(sub, ans, "id")
    predicted = [rle_mask(rle, TGS_SIZE, TGS_SIZE) for rle in sub["rle_mask"].to_numpy()]
    truth = [rle_mask(rle, TGS_SIZE, TGS_SIZE) for rle in ans["rle_mask"].to_numpy()]
    return float(np.mean([_tgs_image_score(t, p) for t, p in zip(truth, predicted)]))


MASK_RULES: dict[str, Rule] = {
    "hubmap-kidney-segmentation": Rule(hubmap, "dice", True),
    "google-research-identify-contrails-reduce-global-warming": Rule(contrails, "global_dice", True),
    "vesuvius-challenge-ink-detection": Rule(vesuvius, "f0.5", True),
    "uw-madison-gi-tract-image-segmentation": Rule(uw_madison, "dice_hausdorff", True),
    "tgs-salt-identification-challenge": Rule(
        tgs_salt, "map_iou", True, "as mle-bench grades under pandas 2; under pandas 3 its grade.py scores nothing"
    ),
}
