"""Process accounting from ``/proc`` for runs without a usable cgroup."""

from __future__ import annotations

import os
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    sid: int
    start: int  # clock ticks after boot: (pid, start) names a process across pid reuse
    cpu_s: float  # own user + system time, plus that of reaped children
    rss: int
    zombie: bool


def read(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode()
    except OSError:
        return None
    f = raw[raw.rindex(")") + 2 :].split()
    ticks = sum(int(x) for x in f[11:15])
    return Proc(pid, int(f[1]), int(f[3]), int(f[19]), ticks / _TICK, int(f[21]) * _PAGE, f[0] == "Z")


def snapshot() -> dict[int, Proc]:
    """Every process visible now."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (p := read(int(name))) is not None:
            out[p.pid] = p
    return out


def pid_namespace(pid: int) -> int | None:
    """Inode of the pid namespace that ``pid`` lives in."""
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return None


class Tree:
    """The processes of one run, followed by parentage and session across ``/proc`` scans.

    ``roots`` are the run's first processes; a process belongs to the run if a root is its
    ancestor, it shares a root's session, or (``pidns``) it lives in the run's pid namespace.
    Processes seen once stay tracked by (pid, start time), so one that detaches from its
    parent after a scan is still killed.
    """

    def __init__(self, roots: list[int], pidns: int | None = None) -> None:
        self.roots = set(roots)
        self.pidns = pidns
        self.known: dict[int, int] = {}  # pid -> start time

    def scan(self) -> list[Proc]:
        procs = snapshot()
        sessions = {procs[r].sid for r in self.roots if r in procs}
        members: dict[int, Proc] = {}
        for p in procs.values():
            if (
                p.pid in self.roots
                or self.known.get(p.pid) == p.start
                or p.sid in sessions
                or (self.pidns is not None and pid_namespace(p.pid) == self.pidns)
            ):
                members[p.pid] = p
        changed = True
        while changed:  # descendants of members
            changed = False
            for p in procs.values():
                if p.pid not in members and p.ppid in members:
                    members[p.pid] = p
                    changed = True
        for p in members.values():
            self.known[p.pid] = p.start
        return [p for p in members.values() if not p.zombie]
