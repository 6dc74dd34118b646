r"""Adaptive anchoring: the anchor rate follows the exploitation monitor.

Anchors are what keep the world-model reward honest, and they are what costs. The controller
spends them where the monitor says they are needed. After every window of ``every`` completed
groups it reads the monitor's verdict (``mixing/monitor.py``) and moves the rate ``r`` once::

    alarm       (the world model drifts or overrates)   r ← min(max_rate, r + up)
    calibrated  (unbiased on the current policy)        r ← max(min_rate, r - down)
    otherwise   (not enough evidence either way)        r unchanged

with ``up = (max_rate - min_rate) / 4`` and ``down = (max_rate - min_rate) / 16`` by default: a
step is bounded, the rate rises to its ceiling within four windows of alarm and falls four times
slower, so a short calm spell does not strip the guard. ``r`` never leaves
``[min_rate, max_rate]``.

The rate is the one input of the anchor decision that moves: in hash selection a group is an
anchor iff ``sha256(seed:0:key) / 2^64 < r`` with ``r`` the rate when its key first arrives, a
pure function of ``(seed, key, r)``. The rate and the group count are part of the state dict.
Processes sharing a pair log each run their own controller; their rates (and so their
decisions on a key) agree only as far as their streams of groups and pairs do.
"""

from __future__ import annotations

from ._validate import rate_in_unit_interval


class AnchorRateController:
    """Moves the anchor rate between ``min_rate`` and ``max_rate`` by the monitor's verdict.

    Args:
        rate: the starting rate, in ``[min_rate, max_rate]``.
        min_rate, max_rate: the bounds, in (0, 1].
        every: completed groups per window (one step per window).
        up, down: step sizes; default a quarter and a sixteenth of ``max_rate - min_rate``.
    """

    def __init__(self, rate: float, min_rate: float, max_rate: float, every: int = 16,
                 up: float | None = None, down: float | None = None) -> None:
        self.min_rate = rate_in_unit_interval("min_rate", min_rate)
        self.max_rate = rate_in_unit_interval("max_rate", max_rate)
        if self.min_rate > self.max_rate:
            raise ValueError(f"min_rate={min_rate} exceeds max_rate={max_rate}")
        self.rate = rate_in_unit_interval("rate", rate)
        if not self.min_rate <= self.rate <= self.max_rate:
            raise ValueError(f"rate={rate} lies outside [min_rate={min_rate}, max_rate={max_rate}]")
        if int(every) < 1:
            raise ValueError(f"every must be at least 1, got {every}")
        span = self.max_rate - self.min_rate
        self.every = int(every)
        self.up = span / 4 if up is None else float(up)
        self.down = span / 16 if down is None else float(down)
        self.pending = 0  # completed groups since the last step

    def groups_completed(self, n: int, verdict: dict) -> float:
        """Count ``n`` completed groups; take one step per full window by ``verdict`` (the
        monitor's ``alarm`` and ``calibrated``); return the rate."""
        self.pending += int(n)
        while self.pending >= self.every:
            self.pending -= self.every
            self.rate = self._step(verdict)
        return self.rate

    def _step(self, verdict: dict) -> float:
        if verdict["alarm"]:
            return min(self.max_rate, self.rate + self.up)
        if verdict["calibrated"]:
            return max(self.min_rate, self.rate - self.down)
        return self.rate

    def state_dict(self) -> dict:
        return {"rate": self.rate, "min_rate": self.min_rate, "max_rate": self.max_rate, "every": self.every,
                "up": self.up, "down": self.down, "pending": self.pending}

    def load_state_dict(self, state: dict) -> None:
        type(self).__init__(self, state["rate"], state["min_rate"], state["max_rate"], state["every"], state["up"],
                            state["down"])
        self.pending = int(state["pending"])
