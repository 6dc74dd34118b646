"""mle-bench's grading rules for competitions scored on boxes and points in a prediction string.

kuzushiji-recognition (F1 of character centre points falling in the answer's boxes, labels equal),
siim-covid19-detection (mean over the answers' classes of the average precision at IoU > 0.5,
"none" and "negative" classes of their own) and 3d-object-detection-for-autonomous-vehicles (mean
over samples and IoU thresholds 0.5 ... 0.95 of the mAP of upright 3-D boxes), each as that
competition's ``grade.py`` in mle-bench 783b15a computes it (written here from reading those files,
kuzushiji's ``kuzushiji_metric.py`` and 3d-object-detection's ``mAP_evaluation.py`` with the
pyquaternion and shapely calls it makes; nothing copied; the base overlap, which shapely computes
there, is clipped here, exact but for the last bits of a float). The prediction strings decide
most verdicts: kuzushiji and 3d-object-detection split on single spaces (a doubled or trailing
space makes an empty token, so a malformed string) and read numbers with Python's ``float``; siim
splits on any whitespace and reads six fields per box, a short box being no score.
:data:`BOX_RULES` joins ``mlebench_rules.RULES``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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




Point = tuple[float, float]
LYFT_FIELDS = 9  # "confidence x y z width length height yaw class" per object
LYFT_THRESHOLDS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]


@dataclass(frozen=True)
class Cuboid:
    """One object of a 3d-object-detection sample, as its ``mAP_evaluation.Box3D`` sees it."""

    sample: Any
    name: str
    score: float
    centre: tuple[float, float, float]
    size: tuple[float, float, float]  # width, length, height
    yaw: float

    def validated(self) -> Cuboid:
        """Box3D's checks, made only when the object is scored: a text sample id, no NaN, every size positive."""
        if not isinstance(self.sample, str):
            raise Refused(f"Sample id {self.sample!r} must be text")
        if np.isnan(self.centre).any() or np.isnan(self.size).any() or np.isnan(self.yaw):
            raise Refused(f"An object of sample {self.sample} has a NaN coordinate, size or yaw")
        if not all(x > 0 for x in self.size):
            raise Refused(f"An object of sample {self.sample} has a size that is not positive: {self.size}")
        return self

    def footprint(self) -> list[Point]:
        """The base's corners from pyquaternion's rotation matrix of the yaw about z, as Box3D has them."""
        half = self.yaw / 2.0
        q = np.array([math.cos(half), *(np.array([0.0, 0.0, 1.0]) * math.sin(half))])
        if not abs(1.0 - np.dot(q, q)) < 1e-14:
            q = q / math.sqrt(np.dot(q, q))
        w, x, y, z = q
        left = np.array([[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]])
        right = np.array([[w, -x, -y, -z], [x, w, z, -y], [y, -z, w, x], [z, y, -x, w]])
        rotation = np.dot(left, right.conj().transpose())[1:][:, 1:]
        cos, sin = rotation[0, 0], rotation[1, 0]
        (cx, cy, _), (width, length, _) = self.centre, self.size
        return [
            (cx + length / 2 * cos + width / 2 * sin, cy + length / 2 * sin - width / 2 * cos),
            (cx + length / 2 * cos - width / 2 * sin, cy + length / 2 * sin + width / 2 * cos),
            (cx - length / 2 * cos - width / 2 * sin, cy - length / 2 * sin + width / 2 * cos),
            (cx - length / 2 * cos + width / 2 * sin, cy - length / 2 * sin - width / 2 * cos),
        ]

    def iou(self, other: Cuboid) -> float:
        """Volume IoU of two upright boxes: base overlap times height overlap, clipped to [0, 1]."""
        (_, _, z), (_, _, h), (_, _, oz), (_, _, oh) = self.centre, self.size, other.centre, other.size
        height = max(0, min(oz + oh / 2, z + h / 2) - max(oz - oh / 2, z - h / 2))
        inter = height * _polygon_area(_clip(self.footprint(), other.footprint()))
        union = np.prod(self.size) + np.prod(other.size) - inter
        return float(np.clip(inter / union, 0, 1))


def _clip(subject: list[Point], clip: list[Point]) -> list[Point]:
    """The intersection of two convex polygons (Sutherland-Hodgman), whose area shapely gives mle-bench."""
    orientation = np.sign(_signed_area(clip)) or 1.0
    out = subject
    for a, b in zip(clip, clip[1:] + clip[:1]):
        out = _clip_edge(out, a, b, orientation)
        if not out:
            break
    return out


def _clip_edge(points: list[Point], a: Point, b: Point, orientation: float) -> list[Point]:
    """``points`` cut to the inner side of the edge a-b."""

    def inside(p: Point) -> bool:
        return orientation * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) >= 0

    out = []
    for p, q in zip(points, points[1:] + points[:1]):
        if inside(q):
            if not inside(p):
                out.append(_crossing(p, q, a, b))
            out.append(q)
        elif inside(p):
            out.append(_crossing(p, q, a, b))
    return out


def _crossing(p: Point, q: Point, a: Point, b: Point) -> Point:
    """Where the segment p-q crosses the line through a and b."""
    d1, d2 = (q[0] - p[0], q[1] - p[1]), (b[0] - a[0], b[1] - a[1])
    t = ((a[0] - p[0]) * d2[1] - (a[1] - p[1]) * d2[0]) / (d1[0] * d2[1] - d1[1] * d2[0])
    return p[0] + t * d1[0], p[1] + t * d1[1]


def _signed_area(points: list[Point]) -> float:
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))


def _polygon_area(points: list[Point]) -> float:
    return abs(_signed_area(points)) if len(points) >= 3 else 0.0


def _cuboids(sample: Any, text: Any) -> list[Cuboid]:
    """A sample's "confidence x y z width length height yaw class" string (blank: no objects), split
    on single spaces; numbers through Python's ``float``."""
    if not isinstance(text, str):
        raise Refused(f"PredictionString of sample {sample!r} is not text")
    if text.strip() == "":
        return []
    tokens = text.split(" ")
    if len(tokens) % LYFT_FIELDS:
        raise Refused(f"PredictionString of sample {sample!r} has {len(tokens)} tokens, not {LYFT_FIELDS} per object")
    out = []
    for k in range(0, len(tokens), LYFT_FIELDS):
        score, x, y, z, width, length, height, yaw = (float(t) for t in tokens[k : k + 8])
        out.append(Cuboid(sample, tokens[k + 8], score, (x, y, z), (width, length, height), yaw))
    return out


def _lyft_ap(truth: list[Cuboid], predicted: list[Cuboid], threshold: float) -> float:
    """One class of one sample: AP of the predictions, most confident first, each a hit when its
    best IoU with an answer box (the first of equals) passes ``threshold`` and that box is not yet taken."""
    truth = [t.validated() for t in truth]
    taken = [False] * len(truth)
    hits = []
    for box in sorted(predicted, key=lambda b: b.score, reverse=True):
        overlaps = [box.validated().iou(t) for t in truth]
        best = int(np.argmax(overlaps)) if overlaps else -1
        hit = best != -1 and overlaps[best] > threshold and not taken[best]
        if hit:
            taken[best] = True
        hits.append(hit)
    tp = np.cumsum(np.array(hits, dtype=float))
    fp = np.cumsum(1.0 - np.array(hits, dtype=float))
    recalls = np.concatenate(([0.0], tp / float(len(truth)), [1.0]))
    precisions = np.concatenate(([0.0], tp / np.maximum(tp + fp, np.finfo(np.float64).eps), [0.0]))
    for i in range(precisions.size - 1, 0, -1):
        precisions[i - 1] = np.maximum(precisions[i - 1], precisions[i])
    steps = np.where(recalls[1:] != recalls[:-1])[0]
    return float(np.sum((recalls[steps + 1] - recalls[steps]) * precisions[steps + 1]))


def _sample_maps(truth: list[Cuboid], predicted: list[Cuboid]) -> list[float]:
    """A sample's mAP at each threshold: the mean over the answer's classes (a class never
    predicted scores 0; a predicted class the answer lacks is ignored)."""
    classes = sorted({t.name for t in truth})
    maps = []
    for threshold in LYFT_THRESHOLDS:
        aps = [
            _lyft_ap([t for t in truth if t.name == c], [p for p in predicted if p.name == c], threshold)
            if any(p.name == c for p in predicted) else 0.0
            for c in classes
        ]
        maps.append(float(np.mean(aps)) if aps else np.nan)
    return maps


def lyft_3d(sub: pd.DataFrame, ans: pd.DataFrame) -> float:
    """3d-object-detection-for-autonomous-vehicles: the mean over samples and the IoU thresholds
    0.5 ... 0.95 of each sample's mAP of upright 3-D boxes. The row count, both columns, ids equal
    once sorted; a blank string is no objects; every string parsed before any is scored, but an
    object's own checks (positive size, no NaN) apply only to the classes its sample's answer has."""
    if len(sub) != len(ans):
        raise Refused(f"Submission has {len(sub)} rows, the answers {len(ans)}")
    need(sub, "Id")
    need(sub, "PredictionString")
    sub, ans = sorted_ids_match(sub, ans, "Id")
    predicted = [_cuboids(i, text) for i, text in zip(sub["Id"], sub["PredictionString"].fillna(""))]
    truth = [_cuboids(i, text) for i, text in zip(ans["Id"], ans["PredictionString"])]
    return float(np.mean([m for t, p in zip(truth, predicted) for m in _sample_maps(t, p)]))


BOX_RULES: dict[str, Rule] = {
    "kuzushiji-recognition": Rule(kuzushiji, "point_f1", True),
    "siim-covid19-detection": Rule(siim_covid, "map_iou_0.5", True),
    "3d-object-detection-for-autonomous-vehicles": Rule(lyft_3d, "map_3d_iou", True),
}
