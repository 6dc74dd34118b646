"""mle-bench's grading rules for competitions scored on boxes and points in a prediction string.

kuzushiji-recognition (F1 of character centre points falling in the answer's boxes, labels equal)
and siim-covid19-detection (mean over the answers' classes of the average precision at IoU > 0.5,
"none" and "negative" classes of their own), each as that competition's ``grade.py`` in mle-bench
783b15a computes it (written here from reading those files and kuzushiji's ``kuzushiji_metric.py``;
nothing copied). The prediction strings decide most verdicts: kuzushiji splits on single spaces
(a doubled or trailing space makes an empty token, so a malformed string) and reads coordinates
with Python's ``float``; siim splits on any whitespace and reads six fields per box, a short box
being no score. :data:`BOX_RULES` joins ``mlebench_rules.RULES``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn import metrics as skm

from wmrl_envs.mle.mlebench_checks import Refused, Rule, need, sorted_ids_match

POINT_FIELDS, BOX_FIELDS = 3, 5  # kuzushiji: "label X Y" predicted, "label X Y Width Height" answered


def _check_points(value: Any) -> None:
    """A kuzushiji prediction: blank, or "label X Y" triples separated by single spaces, X and Y
    read by Python's ``float``."""
    if pd.isna(value):
        return
    if not isinstance(value, str):
        raise Refused(f"`labels` value {value!r} is not text")
    tokens = value.split(" ")
    if len(tokens) % POINT_FIELDS:
        raise Refused(f"Malformed prediction string (not label X Y triples): {value[:80]!r}")
    try:
        [float(tokens[i]) for i in range(len(tokens)) if i % POINT_FIELDS]
    except ValueError as e:
        raise Refused(f"X and Y values must be floats: {e}") from None


def _page_counts(predicted: Any, truth: Any) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of one page: each answer box, in order,
    takes the first unused prediction of its label strictly inside it."""
    if pd.isna(truth) and pd.isna(predicted):
        return 0, 0, 0
    if pd.isna(truth):
        return 0, len(str(predicted).split(" ")) // POINT_FIELDS, 0
    if pd.isna(predicted):
        return 0, 0, len(str(truth).split(" ")) // BOX_FIELDS
    boxes, points = str(truth).split(" "), str(predicted).split(" ")
    assert len(boxes) % BOX_FIELDS == 0, "Malformed solution string"
    label = np.array(boxes[0::BOX_FIELDS])
    x0, y0 = np.array(boxes[1::BOX_FIELDS]).astype(float), np.array(boxes[2::BOX_FIELDS]).astype(float)
    x1, y1 = x0 + np.array(boxes[3::BOX_FIELDS]).astype(float), y0 + np.array(boxes[4::BOX_FIELDS]).astype(float)
    point_label = np.array(points[0::POINT_FIELDS])
    px, py = np.array(points[1::POINT_FIELDS]).astype(float), np.array(points[2::POINT_FIELDS]).astype(float)
    unused = np.ones(len(point_label), dtype=bool)
    tp = fn = 0
    for i in range(len(label)):
        hits = (x0[i] < px) & (x1[i] > px) & (y0[i] < py) & (y1[i] > py) & (point_label == label[i]) & unused
        if hits.sum() == 0:
            fn += 1
        else:
            tp += 1
            unused[np.argmax(hits)] = False
    return tp, int(unused.sum()), fn


def kuzushiji(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """F1 of the points pooled over pages (no prediction and no answer anywhere: 0); the row
    count, both columns, the ids equal once sorted, then every prediction string well formed."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    need(sub, "image_id")
    need(sub, "labels")
    sub, ans = sorted_ids_match(sub, ans, "image_id")
    for value in sub["labels"]:
        _check_points(value)
    counts = [_page_counts(p, t) for p, t in zip(sub["labels"].values, ans["labels"].values)]
    tp, fp, fn = (sum(c[k] for c in counts) for k in range(3))
    if tp + fp == 0 or tp + fn == 0:
        return 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return 2 * precision * recall / (precision + recall) if precision > 0 and recall > 0 else 0.0


Box = tuple[str, float, float, float, float, float]  # label, confidence, xmin, ymin, xmax, ymax
IOU_MATCH = 0.5


def _boxes(value: object) -> list[Box]:
    """A siim prediction string: six whitespace-separated fields per box; a blank is no score."""
    if not isinstance(value, str):
        raise Refused(f"`PredictionString` value {value!r} is not text")
    tokens = value.strip().split()
    if len(tokens) % 6:
        raise Refused(f"PredictionString needs 6 fields per box, got {len(tokens)}: {value[:80]!r}")
    try:
        return [_box(tokens[i : i + 6]) for i in range(0, len(tokens), 6)]
    except ValueError as e:
        raise Refused(f"Could not parse PredictionString: {e}") from None


def _box(fields: list[str]) -> Box:
    label, *numbers = fields
    confidence, x0, y0, x1, y1 = (float(n) for n in numbers)
    return label, confidence, x0, y0, x1, y1


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    width = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _image_pairs(predicted: list[Box], truth: list[Box], cls: str) -> list[tuple[int, float]]:
    """(is a match, confidence) of one image's boxes of class ``cls``, most confident first, each
    taking the unmatched answer box of highest IoU above 0.5; (1, 0) per answer box left; (0, 0)
    for an image with neither."""
    answers = [box[2:] for box in truth if box[0] == cls]
    matched = [False] * len(answers)
    pairs: list[tuple[int, float]] = []
    predicted.sort(key=lambda box: box[1], reverse=True)
    for box in (b for b in predicted if b[0] == cls):
        best, best_iou = -1, 0.0
        for i, answer in enumerate(answers):
            iou = 0.0 if matched[i] else _iou(box[2:], answer)
            if iou > best_iou and iou > IOU_MATCH:
                best, best_iou = i, iou
        pairs.append((int(best != -1), box[1]))
        if best != -1:
            matched[best] = True
    pairs.extend([(1, 0)] * matched.count(False))
    return pairs or [(0, 0)]


def siim_covid(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """Mean over the answers' classes of scikit-learn's average precision of the (match,
    confidence) pairs; a class whose pairs are all matches is no score (mle-bench asserts)."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    need(sub, "id")
    need(sub, "PredictionString")
    sub, ans = sorted_ids_match(sub, ans, "id")
    predicted = [_boxes(v) for v in sub["PredictionString"]]
    truth = [_boxes(v) for v in ans["PredictionString"]]
    aps = []
    for cls in sorted({box[0] for boxes in truth for box in boxes}):
        pairs = [pair for p, t in zip(predicted, truth) for pair in _image_pairs(p, t, cls)]
        if all(y == 1 for y, _ in pairs):
            raise Refused(f"Every pair of class {cls} is a match: average precision undefined")
        aps.append(skm.average_precision_score([y for y, _ in pairs], [s for _, s in pairs]))
    return float(np.mean(aps)) if aps else 0.0


BOX_RULES: dict[str, Rule] = {
    "kuzushiji-recognition": Rule(kuzushiji, "point_f1", True),
    "siim-covid19-detection": Rule(siim_covid, "map_iou_0.5", True),
}
