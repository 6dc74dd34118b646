"""vinbigdata-chest-xray-abnormalities-detection as mle-bench grades it: pycocotools' box evaluation.

mle-bench's grade.py (783b15a) builds COCO datasets from the answers (a row per box) and the
submission (a "class confidence x_min y_min x_max y_max ..." string per image) and reports
``COCOeval.stats[0]``: average precision at IoU 0.4, every box area, at most 100 boxes per image
and class, averaged over classes. This module computes the same from reading that file and
pycocotools' ``cocoeval.py`` and ``maskApi.c`` (nothing copied), quirks included, since they decide
scores:

- boxes are handed to COCO as ``[x_min, y_min, x_max, y_max]`` where COCO reads ``[x, y, width,
  height]``, so the IoU is that of boxes reaching to ``x_min + x_max`` and ``y_min + y_max``;
- annotation ids start at 0, and pycocotools takes a match to id 0 for no match: the answers'
  first box can never be found (a perfect submission scores below 1), and the submission's first
  box leaves the answer box it found free for another;
- a box of negative area is outside the "all" area range: an unmatched one is ignored, not counted
  false;
- predictions of a class the answers never name are dropped; an image's boxes past the 100 most
  confident are dropped.

mle-bench's code converts ``np.where(...)[0]`` with ``int()``, which numpy 2.4 refuses, so under
numpy 2.4 mle-bench scores no submission at all; this grades as it does with numpy before 2.4,
and its reference verdicts were computed so (with ``int()`` of a one-element array allowed).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wmrl_envs.mle.mlebench_checks import Refused, Rule, need

IOU_THRESHOLD = 0.4
MAX_BOXES = 100  # pycocotools' largest maxDets
AREA_ALL = (0.0, 1e5**2)  # pycocotools' "all" area range
RECALL_POINTS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


@dataclass
class Box:
    id: int
    image: int
    cls: int
    xywh: tuple[float, float, float, float]  # as COCO reads the four numbers
    area: float
    score: float = 0.0


def _answer_boxes(ans: pd.DataFrame, images: np.ndarray) -> list[Box]:
    """The answers' boxes, image by image in the order the images first appear, ids from 0."""
    boxes: list[Box] = []
    for index, image in enumerate(images):
        for _, row in ans[ans["image_id"] == image].iterrows():
            x0, y0, x1, y1 = row["x_min"], row["y_min"], row["x_max"], row["y_max"]
            boxes.append(Box(len(boxes), index, row["class_id"], (x0, y0, x1, y1), (x1 - x0) * (y1 - y0)))
    return boxes


def _predicted_boxes(sub: pd.DataFrame, images: np.ndarray) -> list[Box]:
    """The submission's boxes, row by row: six numbers per box split on single spaces (a blank
    string is no score), the class the first read through ``int``, ids from 0."""
    boxes: list[Box] = []
    for _, row in sub.iterrows():
        text = row["PredictionString"]
        if not isinstance(text, str):
            raise Refused(f"PredictionString {text!r} of image {row['image_id']!r} is not text")
        numbers = np.array([float(n) for n in text.split(" ")])
        if numbers.size % 6:
            raise Refused(f"PredictionString of image {row['image_id']!r} has {numbers.size} numbers, not 6 per box")
        index = int(np.flatnonzero(images == row["image_id"])[0])
        for c, score, x0, y0, x1, y1 in numbers.reshape(-1, 6):
            boxes.append(Box(len(boxes), index, int(c), (x0, y0, x1, y1), (x1 - x0) * (y1 - y0), score))
    return boxes


def _iou(d: tuple[float, ...], g: tuple[float, ...]) -> float:
    """maskApi's ``bbIou`` of two [x, y, w, h] boxes (no crowd)."""
    w = np.fmin(d[2] + d[0], g[2] + g[0]) - np.fmax(d[0], g[0])
    if w <= 0:
        return 0.0
    h = np.fmin(d[3] + d[1], g[3] + g[1]) - np.fmax(d[1], g[1])
    if h <= 0:
        return 0.0
    inter = w * h
    return inter / (d[2] * d[3] + g[2] * g[3] - inter)


def _outside(area: float) -> bool:
    return bool(area < AREA_ALL[0] or area > AREA_ALL[1])


def _match_image(truth: list[Box], predicted: list[Box]) -> tuple[list[float], list[bool], list[bool], list[int]]:
    """One image and class: (scores, matched, ignored) of its boxes, most confident first, and the
    answer boxes' ignore flags. Each box takes the free answer box of highest IoU >= 0.4, answer
    boxes outside the area range only when no other is left."""
    predicted = [predicted[i] for i in np.argsort([-b.score for b in predicted], kind="mergesort")][:MAX_BOXES]
    ignore = [int(_outside(g.area)) for g in truth]
    order = np.argsort(ignore, kind="mergesort")
    truth, ignore = [truth[i] for i in order], [ignore[i] for i in order]
    found_by = [0] * len(truth)  # the id of the box that found it; 0 reads as none
    matched, ignored = [], []
    for box in predicted:
        best, iou = -1, min(IOU_THRESHOLD, 1 - 1e-10)
        for i, answer in enumerate(truth):
            if found_by[i] > 0:
                continue
            if best > -1 and ignore[best] == 0 and ignore[i] == 1:
                break
            overlap = _iou(box.xywh, answer.xywh)
            if overlap < iou:
                continue
            best, iou = i, overlap
        found = best != -1 and truth[best].id != 0  # a match to answer id 0 counts as none
        if best != -1:
            found_by[best] = box.id
        matched.append(found)
        ignored.append((best != -1 and ignore[best] == 1) or (not found and _outside(box.area)))
    return [b.score for b in predicted], matched, ignored, ignore


def _class_precision(images: list[tuple[list[Box], list[Box]]]) -> np.ndarray | None:
    """The 101-point interpolated precision of one class over its images, or None (no answer box
    to find: left out of the mean)."""
    scores: list[float] = []
    matched: list[bool] = []
    ignored: list[bool] = []
    answers_ignored: list[int] = []
    for truth, predicted in images:
        image_scores, image_matched, image_ignored, image_answers_ignored = _match_image(truth, predicted)
        scores += image_scores
        matched += image_matched
        ignored += image_ignored
        answers_ignored += image_answers_ignored
    to_find = answers_ignored.count(0)
    if not images or to_find == 0:
        return None
    order = np.argsort(-np.array(scores), kind="mergesort")
    hit, miss = np.array(matched, dtype=bool)[order], ~np.array(matched, dtype=bool)[order]
    counted = ~np.array(ignored, dtype=bool)[order]
    tp, fp = np.cumsum(hit & counted).astype(float), np.cumsum(miss & counted).astype(float)
    recall, precision = tp / to_find, (tp / (fp + tp + np.spacing(1))).tolist()
    for i in range(len(tp) - 1, 0, -1):
        precision[i - 1] = max(precision[i - 1], precision[i])
    at = np.searchsorted(recall, RECALL_POINTS, side="left")  # a recall never reached reads 0
    return np.array([precision[i] if i < len(precision) else 0.0 for i in at])


def vinbigdata(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """COCO AP at IoU 0.4 over the answers' classes (see the module docstring); both columns, the
    image ids compared as sets (a repeated image's boxes all count); -1 if no class has a box to find."""
    need(sub, "PredictionString")
    need(sub, "image_id")
    if set(sub["image_id"]) != set(ans["image_id"]):
        raise Refused("The submission's image_ids must be the answers' image_ids")
    images = ans["image_id"].unique()
    truth, predicted = _answer_boxes(ans, images), _predicted_boxes(sub, images)
    classes = sorted(set(ans["class_id"]))
    by_key: dict[tuple[int, int], tuple[list[Box], list[Box]]] = defaultdict(lambda: ([], []))
    for box in truth:
        by_key[box.image, box.cls][0].append(box)
    for box in predicted:
        if box.cls in classes:
            by_key[box.image, box.cls][1].append(box)
    precisions = []
    for cls in classes:
        images_of = [by_key[i, cls] for i in range(len(images)) if (i, cls) in by_key]
        curve = _class_precision(images_of)
        if curve is not None:
            precisions.append(curve)
    return float(np.mean(np.concatenate(precisions))) if precisions else -1.0


COCO_RULES: dict[str, Rule] = {
    "vinbigdata-chest-xray-abnormalities-detection": Rule(
        vinbigdata, "map_iou_0.4", True, "as mle-bench grades under numpy < 2.4; under 2.4 its grade.py scores nothing"
    ),
}
