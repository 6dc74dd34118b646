"""Anchor pairs on their way from an episode to the debiasing map.

A pair ``(s, y)`` is named when its episode ends (:meth:`PendingPairs.name`: the group key, the
episode's identity, and how many earlier pairs of this process had both, so the same program
sampled twice in a group is two pairs and a replayed episode finds its own name), goes to the
shared pair log when there is one (``store.PairLog``: other processes' pairs come back the same
way), and waits in :attr:`PendingPairs.items` until the mixer commits them (``MixingState.commit``,
"When the map moves" in ``mixing/state.py``). A pair this process appended is its *own*: only
those feed this process's exploitation monitor.
"""

from __future__ import annotations

from typing import NamedTuple

from .store import PairLog, PairRecord


class Pair(NamedTuple):
    """An anchor pair waiting for the next commit."""

    id: str
    s: float
    y: float
    task: str | None  # the episode's task (per-task calibration)
    own: bool  # appended by this process (it feeds this process's monitor)


class PendingPairs:
    """The pairs not yet in the map, and the names this process gave so far."""

    def __init__(self, log: PairLog | None) -> None:
        self.log = log
        self.items: list[Pair] = []
        self.repeats: dict[str, int] = {}  # pairs named so far per (group, episode identity)

    def name(self, base: str) -> str:
        """The next pair id of ``base`` (``key#episode``) in this process."""
        n = self.repeats.get(base, 0)
        self.repeats[base] = n + 1
        return f"{base}#{n}"

    def add(self, pair: PairRecord | None = None) -> bool:
        """Read other processes' new pairs and add ``pair``; whether ``pair`` was new (not a replay's)."""
        if self.log is None:
            if pair is not None:
                self.items.append(Pair(*pair, own=True))
            return pair is not None
        new = self.log.sync(pair)
        mine = pair[0] if pair is not None and self.log.appended else None
        self.items += [Pair(*p, own=p[0] == mine) for p in new]
        return self.log.appended

    def take(self) -> list[Pair]:
        """Every pair waiting, other processes' newest included; none wait after."""
        self.add()
        batch, self.items = self.items, []
        return batch

    def resume(self, saved: list[list] | None) -> list[Pair]:
        """After a restart: the log's pairs, split into those the snapshot's map already held
        (returned, for the map) and those it listed as waiting (``saved``: kept waiting, with
        the owner the snapshot recorded). The names restart: the episodes after the snapshot
        are replays (module docstring)."""
        waiting = {p.id: p.own for p in map(restored, saved or [])}
        self.repeats = {}
        self.add()
        held = [p for p in self.items if p.id not in waiting]
        self.items = [p._replace(own=waiting[p.id]) for p in self.items if p.id in waiting]
        return held

    def state_dict(self) -> list[list]:
        return [list(p) for p in self.items]


def restored(saved: list) -> Pair:
    """A pending pair of a snapshot: ``[id, s, y, task, own]``."""
    i, s, y, task, own = saved
    return Pair(str(i), float(s), float(y), None if task is None else str(task), bool(own))
