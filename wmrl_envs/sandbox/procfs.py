"""Process accounting from ``/proc`` for runs without a usable cgroup."""

from __future__ import annotations

import os
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")
_PF_EXITING = 0x4  # task flag, include/linux/sched.h
_SIGKILL_BIT = 1 << (9 - 1)  # signal masks in /proc/PID/status: bit n-1 for signal n


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    sid: int
    start: int  # clock ticks after boot: (pid, start) names a process across pid reuse
    cpu_s: float  # own user + system time, plus that of reaped children
    rss: int
    zombie: bool
    exiting: bool = False  # the kernel is tearing it down (PF_EXITING): killed, not yet a zombie


def read(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    ticks = sum(int(x) for x in fields[11:15])
    return Proc(pid, int(fields[1]), int(fields[3]), int(fields[19]), ticks / _TICK, int(fields[21]) * _PAGE,
                fields[0] == "Z", fields[0] == "X" or bool(int(fields[6]) & _PF_EXITING))


def dying(p: Proc) -> bool:
    """Whether ``p`` is on its way out: exiting, or with a SIGKILL pending that it cannot outlive
    (a process blocked in a long disk write takes the signal only when the write returns)."""
    if p.zombie or p.exiting:
        return True
    try:
        with open(f"/proc/{p.pid}/status", "rb") as f:
            for line in f:
                if line.startswith((b"SigPnd:", b"ShdPnd:")) and int(line.split()[1], 16) & _SIGKILL_BIT:
                    return True
    except (OSError, ValueError, IndexError):
        return True  # gone while we looked
    return False


def pss(p: Proc) -> int:
    """Proportional set size: shared pages split among sharers, so a forked tree is not
    counted many times over (falls back to RSS where ``smaps_rollup`` is unreadable)."""
    try:
        with open(f"/proc/{p.pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return p.rss


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
    parent after a scan is still killed. ``scan(holders=True)`` also finds processes that
    hold one of the run's output pipes (``pipes``: their inodes): a daemon that forked and
    detached between two scans still has them, unless it closed them.
    """

    def __init__(self, roots: list[int], pidns: int | None = None) -> None:
        self.roots = set(roots)
        self.pidns = pidns
        self.pipes: set[int] = set()
        self.known: dict[int, int] = {}  # pid -> start time

    def scan(self, holders: bool = False) -> list[Proc]:
        procs = snapshot()
        sessions = {procs[r].sid for r in self.roots if r in procs}
        links = {f"pipe:[{i}]" for i in self.pipes} if holders else set()
        members: dict[int, Proc] = {}
        for p in procs.values():
            if (
                p.pid in self.roots
                or self.known.get(p.pid) == p.start
                or p.sid in sessions
                or (self.pidns is not None and pid_namespace(p.pid) == self.pidns)
                or (links and p.pid != os.getpid() and _holds(p.pid, links))
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


def _holds(pid: int, links: set[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in links:
                return True
        except OSError:
            continue
    return False
