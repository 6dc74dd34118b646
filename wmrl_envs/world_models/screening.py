"""Any text in, a prediction out: the input screening around every world model's ``predict``.

(``wmrl_envs.world_models.guard`` until 0.3, a name it shared with the mixing's anti-hacking guard,
:mod:`wmrl_envs.mixing.guard`.)

A policy can emit anything: a non-string, megabytes of text, expressions nested so deep that
``ast.parse`` raises ``RecursionError`` or ``MemoryError``. :func:`safe_predict` answers such
input with a score-0 prediction that says why, in bounded time, instead of an exception:

- not a ``str``: predicted 0 ("the action is not Python source");
- over :data:`MAX_PROGRAM_CHARS`: predicted 0 ("program too large"), before any model reads it;
- the model raises ``RecursionError``, ``MemoryError``, ``ValueError`` or ``SyntaxError``:
  predicted 0 with the error.

:func:`safe_predict_batch` does the same for a batch. A failed prediction (``Prediction.failed``: the model's server is
down) passes through unchanged:
it is not the program's fault, and the wrappers fall back on it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wmrl_envs.world_models.base import Prediction, Verdict, WorldModel, predict_batch
from wmrl_envs.world_models.checks import CHECKS, NEUTRAL

MAX_PROGRAM_CHARS = 1_000_000  # 1 MB of text; the MLE envs themselves run at most 100,000 characters
UNANALYSABLE = (RecursionError, MemoryError, ValueError, SyntaxError)


def zero(reason: str, cost_s: float = 0.0) -> Prediction:
    """A score-0 prediction: the ``syntax`` check fails with ``reason``, the others are unchecked."""
    checks = {c: Verdict(0.0, reason) if c == "syntax" else Verdict(NEUTRAL, "not checked") for c in CHECKS}
    text = f"Predicted by a world model (the code was not executed): score 0.000: {reason}"
    return Prediction(0.0, checks, text, cost_s)


def screen(action: Any, max_chars: int = MAX_PROGRAM_CHARS) -> Prediction | None:
    """The prediction for an action no model should read (not a str, too large), else None."""
    if not isinstance(action, str):
        return zero(f"the action is not Python source: got {type(action).__name__}; send the program as a str")
    if len(action) > max_chars:
        return zero(f"program too large: {len(action):,} characters, over the {max_chars:,} a world model reads; "
                    "send a shorter program")
    return None


def filled(slots: Sequence[Prediction | None], who: str) -> list[Prediction]:
    """A batch's predictions, checked to fill every slot :func:`screen` left open."""
    empty = [i for i, p in enumerate(slots) if p is None]
    if empty:
        raise RuntimeError(f"{who} left actions {empty} of {len(slots)} without a prediction")
    return [p for p in slots if p is not None]


def unanalysable(error: BaseException, cost_s: float = 0.0) -> Prediction:
    """The prediction for a program the model raised on (nested too deep, out of memory, invalid)."""
    if isinstance(error, RecursionError):
        why = "nested too deeply to analyse (RecursionError); flatten the deepest expression"
    elif isinstance(error, MemoryError):
        why = "too large to analyse (MemoryError); send a smaller program"
    else:
        why = f"not valid Python source ({type(error).__name__}: {str(error)[:200]})"
    return zero(f"the program is {why}", cost_s)


def _guard(call: Callable[[], Prediction], action: Any, max_chars: int) -> Prediction:
    early = screen(action, max_chars)
    if early is not None:
        return early
    start = time.perf_counter()
    try:
        return call()
    except UNANALYSABLE as e:
        return unanalysable(e, time.perf_counter() - start)


def safe_predict(world_model: WorldModel, context: Mapping[str, Any], action: Any,
                 max_chars: int = MAX_PROGRAM_CHARS) -> Prediction:
    """``world_model.predict(context, action)``, or a score-0 prediction with the reason for input
    it cannot read (see the module docstring). Never raises on the action."""
    return _guard(lambda: world_model.predict(context, action), action, max_chars)


def safe_predict_batch(world_model: WorldModel, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any],
                       max_chars: int = MAX_PROGRAM_CHARS) -> list[Prediction]:
    """:func:`safe_predict` of a batch: the actions a model may read go to one ``predict_batch``
    call; if that call raises on the input, each is predicted alone (one unreadable program must
    not take the batch down)."""
    out = [screen(a, max_chars) for a in actions]
    todo = [i for i, p in enumerate(out) if p is None]
    if todo:
        try:
            preds = predict_batch(world_model, [contexts[i] for i in todo], [actions[i] for i in todo])
        except UNANALYSABLE:
            preds = [safe_predict(world_model, contexts[i], actions[i], max_chars) for i in todo]
        for i, pred in zip(todo, preds):
            out[i] = pred
    return filled(out, f"{type(world_model).__name__}.predict_batch")


def guarded(predict: Callable[[Any, Mapping[str, Any], Any], Prediction]) -> Callable[..., Prediction]:
    """Decorator form of :func:`safe_predict` for a world model's ``predict`` method."""

    @functools.wraps(predict)
    def guarded_predict(self: Any, context: Mapping[str, Any], action: Any) -> Prediction:
        return _guard(lambda: predict(self, context, action), action, MAX_PROGRAM_CHARS)

    return guarded_predict
