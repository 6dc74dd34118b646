"""Online Debiasing: an increasing isotonic map from world-model score to real score (and, with a
``task_prior``, a per-task correction over it: ``mixing/calibration.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._validate import Floats, finite_1d, same_length
from .calibration import Knots, blended, task_maps
from .isotonic import FITS


class OnlineDebiaser:
    """Learns ``f`` with ``f(s) ≈ E[real | world-model score s]`` from anchor pairs, online.

    ``update`` adds anchor pairs ``(s, y)`` and refits on the last ``window`` of them;
    ``transform`` maps scores through the fit (clipped to the fitted range). The map is applied
    only with evidence: at least ``min_pairs`` pairs, two or more distinct ``s`` *and* two or more
    distinct ``y``, and a fit that is not constant. Otherwise ``transform`` is the identity, and
    :attr:`reason` says why: a map fitted to anchors that all failed (or all succeeded) would
    send every prediction to one value, and every reward with it.

    Args:
        window: pairs kept (the newest); the policy drifts, so old pairs are dropped.
        min_pairs: pairs needed before the map is applied.
        backend: ``"sklearn"`` (default, compiled) or ``"numpy"`` (the pure-numpy PAV).
        task_prior: with a value, pairs carry their task and ``transform(s, task)`` corrects the
            pooled map per task, shrunk towards it by this many pseudo-pairs
            (``mixing/calibration.py``); None: one map for every task.
    """

    def __init__(self, window: int = 4096, min_pairs: int = 16, backend: str = "sklearn",
                 task_prior: float | None = None) -> None:
        if int(window) < 2:
            raise ValueError(f"window must be at least 2, got {window}")
        if int(min_pairs) < 2:
            raise ValueError(f"min_pairs must be at least 2, got {min_pairs}")
        if backend not in FITS:
            raise ValueError(f"backend must be one of {sorted(FITS)}, got {backend!r}")
        if task_prior is not None and not task_prior > 0:
            raise ValueError(f"task_prior must be positive (pseudo-pairs of the shrinkage) or None, got {task_prior}")
        self.window = int(window)
        self.min_pairs = int(min_pairs)
        self.backend = backend
        self.task_prior = task_prior
        self._s = np.empty(0)
        self._y = np.empty(0)
        self._t: list[str | None] = []  # each pair's task (None: unknown)
        self._knots: tuple[np.ndarray, np.ndarray] | None = None
        self.task_maps: dict[str, tuple[Knots, int]] = {}

    @property
    def n_pairs(self) -> int:
        return len(self._s)

    @property
    def active(self) -> bool:
        """Whether ``transform`` applies a fitted map (else it is the identity)."""
        return self._knots is not None

    @property
    def knots(self) -> tuple[np.ndarray, np.ndarray] | None:
        return self._knots

    def update(self, wm_scores: Floats, real_scores: Floats, tasks: Sequence[str | None] | None = None) -> None:
        s = finite_1d("wm_scores", wm_scores)
        y = finite_1d("real_scores", real_scores)
        same_length("wm_scores", s, "real_scores", y)
        tasks = [None] * len(s) if tasks is None or self.task_prior is None else list(tasks)  # kept where used
        if len(tasks) != len(s):
            raise ValueError(f"tasks has {len(tasks)} entries for {len(s)} pairs")
        self._s = np.concatenate([self._s, s])[-self.window :]
        self._y = np.concatenate([self._y, y])[-self.window :]
        self._t = (self._t + tasks)[-self.window :]
        self._refit()

    @property
    def reason(self) -> str:
        """Why the map is or is not applied."""
        if self.n_pairs < self.min_pairs:
            return f"warming up: {self.n_pairs} of {self.min_pairs} anchor pairs"
        if np.unique(self._s).size < 2:
            return "identity: the world-model scores of the anchor pairs do not vary"
        if np.unique(self._y).size < 2:
            return f"identity: every anchor's real score is {self._y[0]:.4g}; a map would be constant"
        if self._knots is None:
            return "identity: the fit is constant (real scores do not rise with the world-model score)"
        return f"active: isotonic map fitted on {self.n_pairs} pairs"

    def _refit(self) -> None:
        self._knots = None
        if self.n_pairs >= self.min_pairs and np.unique(self._s).size >= 2 and np.unique(self._y).size >= 2:
            knots = FITS[self.backend](self._s, self._y)
            if np.ptp(knots[1]) > 0:
                self._knots = knots
        self._correct()

    def _correct(self) -> None:
        """The tasks' own maps beside the pooled one (none without ``task_prior`` or a pooled map)."""
        self.task_maps = {}
        if self._knots is not None and self.task_prior is not None:
            self.task_maps = task_maps(self._s, self._y, self._t, FITS[self.backend])

    def transform(self, wm_scores: Floats, task: str | None = None) -> np.ndarray:
        """Scores through the map (the identity while it is not applied); with ``task_prior`` and a
        ``task`` that has pairs, through that task's blend of its own map and the pooled one."""
        s = finite_1d("wm_scores", wm_scores, allow_empty=True)
        if self._knots is None:
            return s.copy()
        pooled = np.interp(s, *self._knots)
        return pooled if self.task_prior is None else blended(s, pooled, self.task_maps.get(task or ""), self.task_prior)

    def state_dict(self) -> dict:
        return {
            "window": self.window,
            "min_pairs": self.min_pairs,
            "backend": self.backend,
            "task_prior": self.task_prior,
            "wm_scores": self._s.tolist(),
            "real_scores": self._y.tolist(),
            "tasks": list(self._t),
            "knots": None if self._knots is None else [k.tolist() for k in self._knots],
        }

    def load_state_dict(self, state: dict) -> None:
        type(self).__init__(self, state["window"], state["min_pairs"], state.get("backend", "sklearn"),
                            state.get("task_prior"))
        self._s = np.asarray(state["wm_scores"], dtype=np.float64)
        self._y = np.asarray(state["real_scores"], dtype=np.float64)
        self._t = list(state.get("tasks") or [None] * len(self._s))
        knots = state.get("knots")
        if knots is None:
            self._knots = None
        elif len(knots) == 2:
            self._knots = (np.asarray(knots[0], dtype=np.float64), np.asarray(knots[1], dtype=np.float64))
        else:
            raise ValueError(f"debiaser state: knots must be [xs, ys] (2 lists), got {len(knots)}; "
                             "pass the dict OnlineDebiaser.state_dict() wrote")
        self._correct()
