"""The reward-hacking guard's parts, built from one ``MixingConfig`` for ``RewardMixer`` and
``MixingState`` alike: the exploitation monitor (``monitor.py``), the anchor-rate controller when
``adaptive`` (``controller.py``) and the overrated-band shrinkage when ``shrink_overrated``
(``regions.py``)."""

from __future__ import annotations

from typing import NamedTuple

from .config import MixingConfig
from .controller import AnchorRateController
from .monitor import ExploitationMonitor
from .regions import RegionShrinkage


class Guard(NamedTuple):
    monitor: ExploitationMonitor
    controller: AnchorRateController | None
    shrinkage: RegionShrinkage | None


def build_guard(c: MixingConfig) -> Guard:
    return Guard(
        ExploitationMonitor(c.monitor_recent, c.monitor_reference, c.monitor_min_pairs, confidence=c.monitor_confidence),
        AnchorRateController(c.anchor_rate, c.min_rate, c.max_rate, c.adapt_every) if c.adaptive else None,
        RegionShrinkage(c.shrink_bands, confidence=c.monitor_confidence) if c.shrink_overrated else None,
    )
