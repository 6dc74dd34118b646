"""What the values written to the submission mean for the task's metric.

:func:`submission_faults` reads the values the analysis traced into the written frame's columns
and reports those the grader rejects (``crash``: wrong row count, an unfitted model, negatives
under RMSLE) and those that run but cannot score (``hack``: constants, predictions of training
rows, shuffled or misaligned rows, random draws, an untransformed log target, inverted or swapped
probabilities, probabilities where labels are graded and labels where probabilities are,
integer codes where the task's labels are text).
``maybe`` marks faults that depend on the data. Which of these the grader rejects and which it
scores near zero was read off the dev half of ``benchmarks/corpus``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wmrl_envs.world_models.analysis.facts import Fault, Frame, Val, is_numeric

PROBABILITY_METRICS = ("auc", "log_loss", "logloss", "cross_entropy", "brier")
LABEL_METRICS = ("accuracy", "f1", "kappa", "precision", "recall", "mcc")
NONNEGATIVE_METRICS = ("rmsle", "msle")
# Transforms after which predictions carry no signal about the rows they are written for.
SCRAMBLED = {"shuffle": "predictions are shuffled or sorted out of row order",
             "noise": "the model was fit on labels shuffled out of the rows' order (or random labels), so it "
                      "learned noise"}
UNBOUNDED_MODELS = ("Linear", "Ridge", "Lasso", "ElasticNet", "SGD", "SVR", "Lars", "Huber", "numpy", "OLS")


def resolve_classes(frame: Frame | None, ctx: Mapping[str, Any]) -> Frame | None:
    """``frame`` with a probability matrix written under ``columns=m.classes_`` spelled out: on a
    multiclass task the classes are the submission's columns other than the id, in sorted order."""
    if frame is None or frame.class_columns is None or frame.columns is None or ctx.get("task_type") != "multiclass":
        return frame
    classes = sorted(str(c) for c in ctx.get("submission_columns") or [] if c != ctx.get("id_column"))
    if not classes:
        return frame
    out = frame.derive()
    out.columns = frame.columns | set(classes)
    for c in classes:
        out.values.setdefault(c, frame.class_columns.with_(columns=tuple(classes)))
    return out


def submission_faults(frame: Frame | None, lineno: int, ctx: Mapping[str, Any]) -> list[Fault]:
    """Faults of the values in ``frame``, the frame written as the submission at ``lineno``."""
    if frame is None:
        return []
    faults = []
    where = lineno
    if frame.truncated is not None:
        faults.append(Fault("crash", where, f"{_fewer(frame.truncated)}; the grader needs one row per test row",
                            "output_format"))
    id_col = ctx.get("id_column")
    required = [c for c in ctx.get("submission_columns") or [] if c != id_col]
    preds = [(c, frame.values[c]) for c in required if c in frame.values]
    for column, v in preds:
        faults += _value_faults(column, v, ctx, where)
    ids = frame.values.get(id_col) if id_col else None
    if ids is None and id_col and frame.index == id_col:
        ids = frame.values.get("__index__")
    if ids is not None and id_col:
        faults += _id_faults(ids, [v for _, v in preds], where, id_col)
    return faults


def _fewer(n: int) -> str:
    """Why fewer rows than the test file are written (``n`` < 0: ``dropna`` dropped test rows)."""
    if n < 0:
        return "dropna() drops the test rows that have missing values, so fewer rows are written"
    return f"writes at most {n} rows"


def _value_faults(column: str, v: Val, ctx: Mapping[str, Any], where: int) -> list[Fault]:
    metric = str(ctx.get("metric", "")).lower()
    task = ctx.get("task_type", "")
    if v.kind == "const":
        return [Fault("hack", where, f"column {column!r} holds one constant for every row")]
    if v.kind == "noise":
        return [Fault("hack", where, f"column {column!r} holds random numbers that no model predicted")]
    if v.kind == "column" and v.column == ctx.get("target"):
        return [Fault("hack", where, f"column {column!r} copies the training labels, not predictions")]
    if v.kind != "pred":
        return []
    out = []
    if not v.fitted:
        out.append(Fault("crash", v.lineno, f"line {v.lineno}: predicts with a {v.model or 'model'} that is never fit",
                         "api_calls"))
    if v.truncated is not None:
        out.append(Fault("crash", where, f"predictions: {_fewer(v.truncated)}", "output_format"))
    if v.rows == "train" and v.sliced:
        out.append(Fault("hack", where, f"column {column!r} holds predictions for training rows, not test rows"))
    elif v.rows == "train":
        out.append(Fault("crash", where, f"column {column!r} holds one prediction per training row; the test ids "
                         "are fewer", "output_format"))
    out += [Fault("hack", where, f"column {column!r}: {why}") for t, why in SCRAMBLED.items() if t in v.transforms]
    if v.transforms.count("log") > v.transforms.count("exp"):
        out.append(Fault("hack", where, "the model learns a log target and its predictions are never transformed back"))
    is_proba = v.output in ("proba", "proba_matrix")
    if task == "binary" and v.output != "value" and ("invert" in v.transforms) != ("class0" in v.transforms):
        what = "probability" if is_proba else "label"
        out.append(Fault("hack", where, f"column {column!r} holds the {what} of the other class"))
    if any(m in metric for m in LABEL_METRICS) and is_proba:
        out.append(Fault("hack", where, f"{metric} grades labels; column {column!r} holds probabilities"))
    if any(m in metric for m in PROBABILITY_METRICS) and v.output == "label":
        out.append(Fault("hack", where, f"{metric} grades probabilities; column {column!r} holds hard labels"))
        if task == "multiclass" and "round" in v.transforms:
            out.append(Fault("maybe", where, "rounded class probabilities leave a row of zeros wherever no class "
                             "reaches 0.5, and the grader rejects rows whose probabilities do not sum above 0",
                             "output_format"))
    if "bool" in v.transforms and "unbool" not in v.transforms and task != "regression":
        out.append(Fault("hack", where, f"column {column!r} holds True/False, not the task's labels"))
    if v.transforms.count("codes") > v.transforms.count("decode") and v.output == "label" and _text_target(ctx):
        out.append(Fault("hack", where, f"column {column!r} holds the integer codes of the labels the model was fit "
                         "on, not the task's text labels; map them back (inverse_transform)"))
    if v.output == "proba_matrix" and len(v.columns) > 1 and list(v.columns) != sorted(v.columns):
        out.append(Fault("hack", where, f"probability columns written as {', '.join(v.columns)}, but the model's "
                         "classes_ are sorted: the columns are swapped"))
    if (any(m in metric for m in NONNEGATIVE_METRICS) and not {"clip", "exp"} & set(v.transforms)
            and any(u in v.model for u in UNBOUNDED_MODELS)):
        out.append(Fault("maybe", where, f"{v.model} can predict negatives, which {metric} rejects; clip at 0",
                         "output_format"))
    return out


def _text_target(ctx: Mapping[str, Any]) -> bool:
    """Whether the task's labels are text (the target's dtype in the training file's schema)."""
    target = ctx.get("target")
    dtypes = [f.get("columns", {}).get(target) for f in (ctx.get("files") or {}).values()]
    known = [d for d in dtypes if d is not None]
    return bool(known) and not any(is_numeric(d) for d in known)


def _id_faults(ids: Val, preds: list[Val], where: int, id_col: str) -> list[Fault]:
    if ids.kind == "range":
        return [Fault("crash", where, f"{id_col!r} is a counter, not the test rows' ids; the grader matches ids",
                      "output_format")]
    if ids.kind == "column" and ids.rows == "train":
        return [Fault("hack", where, f"{id_col!r} comes from the training rows")]
    for p in preds:
        if p.kind == "pred" and ids.kind == "column" and p.order != ids.order and "shuffle" not in p.transforms:
            return [Fault("hack", where, "ids and predictions come from differently ordered rows")]
    return []
