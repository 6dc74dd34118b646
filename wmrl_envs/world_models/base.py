"""The world-model contract: predict an action's outcome instead of executing it.

A world model maps ``(context, action)`` to a :class:`Prediction` whose ``score`` lies in
``[0, 1]`` and estimates the env's real reward. The env supplies ``context`` (a plain dict:
``info["wm_context"]`` from ``reset``, refreshed in ``step`` info where it changes); a wrapper
never reaches into env internals beyond that.

Text envs: ``context`` describes the task (see :class:`~wmrl_envs.contract.WmContext`), ``action`` is the code.
Embodied envs: ``context`` carries the instruction and the goal state, ``action`` is the
observation reached, and ``score`` is task progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# The env's side of the contract lives with the step contract (wmrl_envs/contract.py), re-exported
# here under the names world models have always used.
from wmrl_envs.contract import FileSchema as FileSchema
from wmrl_envs.contract import WmContext

TaskContext = WmContext


@dataclass(frozen=True)
class Verdict:
    """One check's outcome: ``p_pass`` in [0, 1] and why."""

    p_pass: float
    reason: str = ""
    parse_failed: bool = False


@dataclass
class Prediction:
    """A world model's prediction of one action's outcome.

    ``failed`` is None for a prediction; otherwise the world model could not predict (its server
    failed, timed out, answered garbage) and says why: ``score`` is then 0 and is *not* a reward.
    The wrappers fall back (``on_wm_failure``) instead of paying it.
    """

    score: float
    checks: dict[str, Verdict] = field(default_factory=dict)
    feedback: str = ""
    cost_s: float = 0.0
    failed: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.score) <= 1.0:
            raise ValueError(f"Prediction.score must lie in [0, 1], got {self.score!r}")

    @classmethod
    def failure(cls, reason: str, cost_s: float = 0.0) -> Prediction:
        """No prediction, and why (``score`` 0 is a placeholder, not a reward)."""
        return cls(0.0, feedback=f"The world model failed: {reason}", cost_s=cost_s, failed=reason)


@runtime_checkable
class WorldModel(Protocol):
    """Anything with ``predict`` (and optionally a faster ``predict_batch``)."""

    def predict(self, context: Mapping[str, Any], action: Any) -> Prediction: ...


def predict_batch(
    world_model: WorldModel, contexts: Sequence[Mapping[str, Any]], actions: Sequence[Any]
) -> list[Prediction]:
    """Batched prediction: the model's own ``predict_batch`` where it has one."""
    if len(contexts) != len(actions):
        raise ValueError(f"contexts and actions differ in length: {len(contexts)} != {len(actions)}")
    batch = getattr(world_model, "predict_batch", None)
    if batch is not None:
        return list(batch(contexts, actions))
    return [world_model.predict(c, a) for c, a in zip(contexts, actions)]
