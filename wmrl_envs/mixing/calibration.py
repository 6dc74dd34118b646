"""Per-task calibration: a world model's bias can differ by task, and one pooled map averages it.

The pooled isotonic map ``f`` (``mixing/debias.py``) is fitted on every task's anchor pairs. When a
world model overrates one task and underrates another, ``f`` averages the two and undoes neither
(where the tasks' scores overlap, or where their biases together are not monotone).
``MixingConfig(calibration="per-task")`` fits each task's own isotonic map ``f_t`` on that task's
``n_t`` pairs in the window and blends it with the pooled map, shrunk towards ``f`` by
``λ = task_prior`` pseudo-pairs:

    g_t(s) = (n_t · f_t(s) + λ · f(s)) / (n_t + λ)

A task without pairs keeps ``f``; one with many pairs gets its own map; in between the weight on
the task's own evidence grows as ``n_t / (n_t + λ)``, the posterior mean of a normal prior worth
``λ`` pairs centred on the pooled map. A convex combination of increasing maps is increasing, so
``g_t`` never reverses the world model's order within a task. ``f_t`` of a task whose anchors all
scored the same real reward is that constant: the task's own evidence, however little, is that its
programs score it. What this changes in GRPO: under ``normalize="none"`` a group's advantages
``r − r̄`` take the task's scale (an offset cancels within a group), and the debiased residuals that
set the inverse-variance weights shrink where a task's bias was the pooled map's error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Knots = tuple[np.ndarray, np.ndarray]


def task_maps(s: np.ndarray, y: np.ndarray, tasks: Sequence[str | None],
              fit: Callable[[np.ndarray, np.ndarray], Knots]) -> dict[str, tuple[Knots, int]]:
    """``{task: (knots of f_t, n_t)}`` for every task with pairs; pairs without a task (``None``)
    fit nothing."""
    labels = np.asarray([t if t is not None else "" for t in tasks], dtype=object)
    return {str(t): (fit(s[m], y[m]), int(m.sum()))
            for t in dict.fromkeys(x for x in tasks if x is not None) for m in [labels == t]}


def blended(s: np.ndarray, pooled: np.ndarray, task_map: tuple[Knots, int] | None, prior: float) -> np.ndarray:
    """``g_t(s)`` from the scores ``s`` and the pooled map's values ``pooled = f(s)`` (module
    docstring); ``pooled`` itself without a map of the task."""
    if task_map is None:
        return pooled
    if not prior > 0:
        raise ValueError(f"task_prior must be positive (pseudo-pairs of the shrinkage), got {prior}")
    knots, n = task_map
    return (n * np.interp(s, *knots) + prior * pooled) / (n + prior)
