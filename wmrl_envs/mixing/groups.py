"""The mixer's open groups: each group's finished episodes until the group is complete.

A trainer's group (its episodes carry their place, ``Member.place``) completes when the trainer
asks for it (:meth:`OpenGroups.take`) or its batch ends (:meth:`OpenGroups.pop_all`). Any other
group closes itself: when a new group key begins (:meth:`OpenGroups.close_all_but`) or, for a key
begun with a size G (``MixingConfig(group_size=G)``), when its G-th episode ends
(:meth:`OpenGroups.add`): copies of one process that interleave their episodes then never cut each
other's groups short.
"""

from __future__ import annotations

from typing import NamedTuple


class Member(NamedTuple):
    """One finished episode of an open group."""

    reward: float
    residual: float | None  # real - f(wm score), f before the pair; None without a pair
    calibrated: bool  # whether f was an active map
    place: int | None = None  # its place in the trainer's group (reset option "member"), if given


class OpenGroups:
    """Members per group key, and the size of the groups that complete at their G-th episode."""

    def __init__(self) -> None:
        self.members: dict[str, list[Member]] = {}
        self.sizes: dict[str, int] = {}

    def expect(self, key: str, size: int) -> None:
        """Group ``key`` completes at its ``size``-th finished episode."""
        self.sizes[key] = int(size)

    def add(self, key: str, member: Member) -> dict[str, list[Member]]:
        """Record a finished episode; return ``{key: members}`` if that completed a sized group, else {}.
        An episode at a place its group already holds is that episode replayed (a run resumed from
        a snapshot taken mid-batch redoes the batch): it replaces the one recorded."""
        members = self.members.setdefault(key, [])
        if member.place is not None:
            members[:] = [m for m in members if m.place != member.place]
        members.append(member)
        if len(members) < self.sizes.get(key, len(members) + 1):
            return {}
        return self._pop([key])

    def waits(self, key: str) -> bool:
        """Whether open group ``key`` is a trainer's, waiting for its ask."""
        return any(m.place is not None for m in self.members.get(key, ()))

    def waiting(self) -> bool:
        """Whether a trainer's group is open (its batch has not ended)."""
        return any(self.waits(k) for k in self.members)

    def close_all_but(self, keep: str) -> dict[str, list[Member]]:
        """A new group ``keep`` began: every open group that closes itself but it and the sized ones
        not yet full is complete."""
        return self._pop([k for k, m in self.members.items()
                          if k != keep and not self.waits(k) and len(m) >= self.sizes.get(k, 0)])

    def take(self, keys: list[str]) -> dict[str, list[Member]]:
        """Groups ``keys``, complete (a trainer asks for their advantages), each in the trainer's
        order where its episodes said their place (``Member.place``), else in the order they ended."""
        missing = [k for k in keys if k not in self.members]
        if missing:
            raise ValueError(f"no finished episode of group(s) {missing} reached this mixer: ask for the groups whose "
                             "episodes ran through its MixedRewardWrapper, once each")
        taken = self._pop(keys)
        return {k: (sorted(m, key=lambda x: x.place) if all(x.place is not None for x in m) else m)  # type: ignore[arg-type,return-value]
                for k, m in taken.items()}

    def pop_all(self) -> dict[str, list[Member]]:
        """Every open group is complete (a trainer's batch ended)."""
        return self._pop(list(self.members))

    def _pop(self, keys: list[str]) -> dict[str, list[Member]]:
        for k in keys:
            self.sizes.pop(k, None)
        return {k: self.members.pop(k) for k in keys}

    def state_dict(self) -> dict:
        return {"open_groups": {k: [list(m) for m in ms] for k, ms in self.members.items()},
                "group_sizes": {k: g for k, g in self.sizes.items() if k in self.members}}

    def load_state_dict(self, state: dict) -> None:
        self.members = {k: [Member(*m) for m in ms] for k, ms in state.get("open_groups", {}).items()}
        self.sizes = {k: int(g) for k, g in (state.get("group_sizes") or {}).items()}
