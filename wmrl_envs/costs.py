"""The cost keys of the step contract: what one ``env.step`` spent, in ``info["cost"]``.

Every env and wrapper of this package reports the same five keys, so a trainer can add the cost
of any step to its totals without knowing where the step came from:

- ``exec_s``: wall seconds of the sandboxed program run (0 for a predicted step);
- ``exec_cpu_s``: CPU seconds of that run, the sandbox's startup CPU included;
- ``wm_s``: seconds the world model spent predicting;
- ``sim_steps``: simulator steps (embodied envs; the settle steps of a reset are charged to the
  first step);
- ``sim_s``: wall seconds of those simulator steps.

This module is the one place the keys are written out: :class:`Cost` types them, envs build their
cost with :func:`zero_cost`, trainers total with :func:`add_cost`. (:data:`CostKey` spells the same
names as a ``Literal``, so that ``cost[k]`` for ``k`` in :data:`COST_KEYS` type-checks; a test keeps
the two equal.)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, TypedDict, cast, get_args, get_type_hints


class Cost(TypedDict):
    """What one step spent (module docstring): ``sim_steps`` counts steps, the others are seconds."""

    exec_s: float
    exec_cpu_s: float
    wm_s: float
    sim_steps: int
    sim_s: float


CostKey = Literal["exec_s", "exec_cpu_s", "wm_s", "sim_steps", "sim_s"]
COST_KEYS: tuple[CostKey, ...] = get_args(CostKey)
# float() and int(): each key's zero in its own type
ZERO_COST: Mapping[str, float] = MappingProxyType({k: t() for k, t in get_type_hints(Cost).items()})


def zero_cost(**spent: float) -> Cost:
    """A new cost dict with every key of the contract: zero, except the keys given in ``spent``.

    >>> zero_cost(wm_s=0.5)
    {'exec_s': 0.0, 'exec_cpu_s': 0.0, 'wm_s': 0.5, 'sim_steps': 0, 'sim_s': 0.0}
    """
    _check_keys(spent)
    return cast(Cost, {**ZERO_COST, **spent})


def add_cost(*costs: Mapping[str, Any] | None) -> Cost:
    """The key-wise sum of ``costs``, a new :class:`Cost`. A cost may be None or lack keys (an env
    that reports only its simulator time, a step with no cost): those count 0; so does a None value.

    >>> add_cost({"exec_s": 1.5}, None, zero_cost(exec_s=0.5, wm_s=0.25))["exec_s"]
    2.0
    """
    total = dict(ZERO_COST)
    for cost in costs:
        _check_keys(cost or {})
        for k, v in (cost or {}).items():
            total[k] += v or 0
    return cast(Cost, total)


def _check_keys(cost: Mapping[str, Any]) -> None:
    unknown = sorted(set(cost) - set(ZERO_COST))
    if unknown:
        raise TypeError(f"unknown cost key(s) {unknown}: the contract's keys are {COST_KEYS} (wmrl_envs/costs.py)")
