"""The reward-hacking guard, built from one ``MixingConfig``: the exploitation monitor
(``monitor.py``) that judges the map on this process's anchor pairs, the anchor-rate controller
when ``adaptive`` (``controller.py``) that moves the rate by the monitor's verdict, and the
overrated-band shrinkage when ``shrink_overrated`` (``regions.py``) that shrinks world-model
rewards in score bands recent anchors show overrated."""

from __future__ import annotations

from .config import MixingConfig
from .controller import AnchorRateController
from .monitor import ExploitationMonitor
from .regions import RegionShrinkage


class Guard:
    """The monitor, the controller (None unless ``adaptive``) and the shrinkage (None unless
    ``shrink_overrated``) of one mixer."""

    def __init__(self, c: MixingConfig) -> None:
        self.monitor = ExploitationMonitor(c.monitor_recent, c.monitor_reference, c.monitor_min_pairs,
                                           confidence=c.monitor_confidence)
        self.controller = AnchorRateController(c.anchor_rate, c.min_rate, c.max_rate, c.adapt_every) if c.adaptive else None
        self.shrinkage = RegionShrinkage(c.shrink_bands, confidence=c.monitor_confidence) if c.shrink_overrated else None
        self._overrated: tuple[int, dict] = (-1, {})  # (monitor pairs when computed, overrated bands)

    def rate_after(self, completed: int, rate: float) -> float:
        """The anchor rate once ``completed`` more groups are complete (``rate`` unless adaptive)."""
        if self.controller is None or not completed:
            return rate
        return self.controller.groups_completed(completed, self.monitor.report())

    def shrink(self, reward: float) -> float:
        """A debiased world-model reward, shrunk if its band is overrated (unchanged without shrinkage)."""
        return reward if self.shrinkage is None else self.shrinkage.adjust(reward, self.overrated_bands())

    def overrated_bands(self) -> dict[int, dict]:
        """The score bands recent anchors show overrated (recomputed when a pair arrives)."""
        if self.shrinkage is None:
            return {}
        if self._overrated[0] != self.monitor.n_pairs:
            self._overrated = (self.monitor.n_pairs, self.shrinkage.overrated(self.monitor.recent))
        return self._overrated[1]

    def report(self) -> dict:
        """The monitor's report, and the overrated bands with shrinkage (for ``stats()``)."""
        return {"monitor": self.monitor.report(),
                **({} if self.shrinkage is None else {"overrated_bands": self.overrated_bands()})}

    def state_dict(self) -> dict:
        return {"monitor": self.monitor.state_dict(),
                "controller": None if self.controller is None else self.controller.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        if state.get("monitor") is not None:
            self.monitor.load_state_dict(state["monitor"])
        if self.controller is not None and state.get("controller") is not None:
            self.controller.load_state_dict(state["controller"])
