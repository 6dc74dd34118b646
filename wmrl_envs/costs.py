"""The cost keys of the step contract: what one ``env.step`` spent, in ``info["cost"]``.

Every env and wrapper of this package reports the same five keys, so a trainer can add the cost
of any step to its totals without knowing where the step came from:

- ``exec_s``: wall seconds of the sandboxed program run (0 for a predicted step);
- ``exec_cpu_s``: CPU seconds of that run, the sandbox's startup CPU included;
- ``wm_s``: seconds the world model spent predicting;
- ``sim_steps``: simulator steps (embodied envs; the settle steps of a reset are charged to the
  first step);
- ``sim_s``: wall seconds of those simulator steps.

This module is the one place the keys are written out: envs build their cost with
:func:`zero_cost`, trainers total over :data:`COST_KEYS`.
"""

from __future__ import annotations

from types import MappingProxyType

# sim_steps counts steps (an int); the others are seconds.
ZERO_COST = MappingProxyType({"exec_s": 0.0, "exec_cpu_s": 0.0, "wm_s": 0.0, "sim_steps": 0, "sim_s": 0.0})
COST_KEYS: tuple[str, ...] = tuple(ZERO_COST)


def zero_cost(**spent: float) -> dict[str, float]:
    """A new cost dict with every key of the contract: zero, except the keys given in ``spent``.

    >>> zero_cost(wm_s=0.5)
    {'exec_s': 0.0, 'exec_cpu_s': 0.0, 'wm_s': 0.5, 'sim_steps': 0, 'sim_s': 0.0}
    """
    unknown = sorted(set(spent) - set(ZERO_COST))
    if unknown:
        raise TypeError(f"unknown cost key(s) {unknown}: the contract's keys are {COST_KEYS}")
    return {**ZERO_COST, **spent}
