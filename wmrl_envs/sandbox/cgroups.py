"""Per-run control groups on cgroup v2, v1 or a hybrid of both, where this process may write them.

A run gets one child group in each useful hierarchy, below this process's own group. Limits
(memory without swap, processes, a CPU quota) go to whichever hierarchy offers the controller;
accounting (CPU seconds, peak memory, OOM kills) is read back from the same place, and the
whole group is killed at the end. With no writable hierarchy, ``RunCgroup.create`` returns None
and the caller falls back to rlimits and its own watcher.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .base import Limits, MiB

log = logging.getLogger(__name__)

_PREFIX = "wmrl-"
_counter = itertools.count()
_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "blkio")


@dataclass(frozen=True)
class Hierarchy:
    version: int  # 1 or 2
    controllers: frozenset[str]  # usable in a child group
    path: Path  # this process's own group: children are created here
    mount: Path  # where the hierarchy is mounted
    root: str  # the group the mount shows at its top


def _own_groups(thread: bool = False) -> dict[str, str]:
    """``/proc/self/cgroup``: controller (``""`` for v2) -> path of this process's group."""
    groups: dict[str, str] = {}
    with open("/proc/thread-self/cgroup" if thread else "/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in ctrls.split(",") if ctrls else [""]:
                groups[c.removeprefix("name=")] = path
    return groups


def _under(mount: str, mount_root: str, own: str) -> Path:
    rel = os.path.relpath(own, mount_root) if own.startswith(mount_root) else "."
    return Path(os.path.normpath(os.path.join(mount, rel)))


_discovery_lock = threading.Lock()


def hierarchies() -> tuple[Hierarchy, ...]:
    """The writable hierarchies whose controllers a run can use (found once per process)."""
    with _discovery_lock:
        return _discover()


@functools.lru_cache(maxsize=1)
def _discover() -> tuple[Hierarchy, ...]:
    try:
        own = _own_groups()
        with open("/proc/self/mountinfo") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return ()
    found: list[Hierarchy] = []
    seen: set[str] = set()
    for fields in mounts:
        sep = fields.index("-")
        fstype, root, mount, opts = fields[sep + 1], fields[3], fields[4], fields[sep + 3]
        if fstype == "cgroup2" and "" in own:
            path = _under(mount, root, own[""])
            found.insert(0, Hierarchy(2, _v2_controllers(path), path, Path(mount), root))
        elif fstype == "cgroup":
            ctrls = frozenset(o for o in opts.split(",") if o in _CONTROLLERS) - seen
            key = next(iter(ctrls), None)
            if key and key in own:
                seen |= ctrls
                found.append(Hierarchy(1, ctrls, _under(mount, root, own[key]), Path(mount), root))
    usable = [h for h in found if _writable(h.path)]
    v2 = next((h for h in usable if h.version == 2), None)
    v1 = [h for h in usable if h.version == 1]
    if v2 is not None and (v2.controllers or not v1):
        # v2 accounts CPU in every group (cpu.stat); v1 only adds controllers v2 lacks.
        covered = v2.controllers | {"cpuacct"}
        chosen = [v2] + [h for h in v1 if not h.controllers <= covered]
    else:
        # Hybrid host whose v2 tree has no controllers: v1 alone, since moving a process
        # into a v2 group costs ~20x more than into a v1 group.
        chosen = v1
    for h in chosen:
        _sweep(h.path)
    return tuple(chosen)


def _v2_controllers(path: Path) -> frozenset[str]:
    wanted = {"memory", "pids", "cpu", "io"}
    try:
        have = set((path / "cgroup.subtree_control").read_text().split())
        missing = wanted & set((path / "cgroup.controllers").read_text().split()) - have
        if missing:  # allowed only where this group holds no processes itself (e.g. a root)
            try:
                (path / "cgroup.subtree_control").write_text(" ".join("+" + c for c in missing))
                have |= missing
            except OSError:
                pass
    except OSError:
        return frozenset()
    return frozenset(have & wanted)


def _writable(path: Path) -> bool:
    probe = path / f"{_PREFIX}probe-{os.getpid()}"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def _sweep(path: Path) -> None:
    """Remove groups left by harness processes that died without cleaning up."""
    for d in path.glob(f"{_PREFIX}*-*"):
        try:
            owner = int(d.name.split("-")[1])
        except ValueError:
            continue
        if owner != os.getpid() and not Path(f"/proc/{owner}").exists():
            _kill_procs(d)
            _rmdir(d)


def _kill_procs(d: Path) -> None:
    for pid in _read_pids(d):
        if pid == os.getpid():  # never the harness, whatever a group holds
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _read_pids(d: Path) -> list[int]:
    try:
        return [int(x) for x in (d / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _rmdir(d: Path, tries: int = 50) -> None:
    for _ in range(tries):
        try:
            d.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
            time.sleep(0.02)
    log.warning("cgroup %s still busy; left in place", d)


def _read_key(path: Path, key: str) -> int | None:
    try:
        for line in path.read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        pass
    return None


class RunCgroup:
    """One run's groups: limits in, processes attached, accounting out, everything killed."""

    def __init__(self, dirs: dict[Hierarchy, Path]) -> None:
        self.dirs = dirs
        self.limits_disk = False
        self._inherited: set[Hierarchy] = set()

    @classmethod
    def create(cls, limits: Limits, tasks: int | None = None) -> RunCgroup | None:
        """The run's groups with ``limits`` applied, at most ``tasks`` host processes and threads
        (default ``limits.max_procs``), or None."""
        hs = hierarchies()
        if not hs:
            return None
        name = f"{_PREFIX}{os.getpid()}-{next(_counter)}"
        dirs: dict[Hierarchy, Path] = {}
        try:
            for h in hs:
                d = h.path / name
                d.mkdir()
                dirs[h] = d
            cg = cls(dirs)
            cg._apply(limits, limits.max_procs if tasks is None else tasks)
            return cg
        except OSError as e:
            log.warning("cgroup setup failed (%s); falling back to rlimits", e)
            for d in dirs.values():
                _rmdir(d)
            return None

    def _dir(self, controller: str) -> tuple[int, Path] | None:
        for h, d in self.dirs.items():
            if controller in h.controllers:
                return h.version, d
        return None

    def _apply(self, limits: Limits, tasks: int) -> None:
        mem = limits.memory_mb * MiB
        if m := self._dir("memory"):
            v, d = m
            if v == 2:
                (d / "memory.max").write_text(str(mem))
                _write_if_present(d / "memory.swap.max", "0")
                _write_if_present(d / "memory.oom.group", "1")
            else:
                (d / "memory.limit_in_bytes").write_text(str(mem))
                _write_if_present(d / "memory.memsw.limit_in_bytes", str(mem))
        if p := self._dir("pids"):
            (p[1] / "pids.max").write_text(str(tasks))
        if c := self._dir("cpu"):
            v, d = c
            period = 100_000
            quota = int(limits.threads * period)
            if v == 2:
                (d / "cpu.max").write_text(f"{quota} {period}")
            else:
                (d / "cpu.cfs_period_us").write_text(str(period))
                (d / "cpu.cfs_quota_us").write_text(str(quota))
        self.limits_disk = self._throttle_disks(limits)

    def _throttle_disks(self, limits: Limits) -> bool:
        """Cap the run's reads of every disk of the host (``io.max``, v1 ``blkio.throttle``); True
        if every disk took the cap. A run reads the host's disks through its read-only binds,
        buffered or with ``O_DIRECT``, which skips the page cache its memory limit charges."""
        io = self._dir("io") or self._dir("blkio")
        if io is None:
            return False
        v, d = io
        bps, iops = limits.disk_read_mbps * MiB, limits.disk_read_iops
        every = True
        for _, dev in disks():
            try:
                if v == 2:
                    (d / "io.max").write_text(f"{dev} rbps={bps} riops={iops}")
                else:
                    (d / "blkio.throttle.read_bps_device").write_text(f"{dev} {bps}")
                    (d / "blkio.throttle.read_iops_device").write_text(f"{dev} {iops}")
            except OSError as e:  # a device the block layer cannot throttle: say so, keep the rest
                log.warning("could not cap reads of block device %s (%s)", dev, e)
                every = False
        return every

    @property
    def memory_version(self) -> int | None:
        """The cgroup version whose memory controller charges this run (None: none does)."""
        m = self._dir("memory")
        return m[0] if m else None

    @property
    def limits_memory(self) -> bool:
        return self._dir("memory") is not None

    @property
    def limits_pids(self) -> bool:
        return self._dir("pids") is not None

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        """Processes forked by this thread inside the block start in the run's v1 groups.

        Moving a running process into a group makes the kernel wait for an RCU grace period
        (about 1-12 ms, more under load); a v1 group can instead take the calling *thread*
        alone (``tasks`` <- ``0``), which skips that wait, and a fork inherits the thread's
        groups. The thread moves back on exit. v2 groups cannot hold a lone thread: ``add``
        moves the process into those afterwards.
        """
        entered: list[Hierarchy] = []
        home = _own_groups(thread=True)
        try:
            for h, d in self.dirs.items():
                if h.version == 1:
                    try:
                        (d / "tasks").write_text("0")
                        entered.append(h)
                    except OSError:
                        pass
            self._inherited = set(entered)
            yield
        finally:
            for h in entered:
                key = next(iter(h.controllers))
                (_under(str(h.mount), h.root, home[key]) / "tasks").write_text("0")

    def add(self, pid: int, spawned: bool = True) -> None:
        """Move ``pid`` into every group it did not inherit from ``spawning`` (every group, for
        a process not started inside that block: ``spawned=False``)."""
        for h, d in self.dirs.items():
            if not spawned or h not in self._inherited:
                (d / "cgroup.procs").write_text(str(pid))

    def pids(self) -> list[int]:
        """Processes in the run's groups now."""
        return sorted({p for d in self.dirs.values() for p in _read_pids(d)})

    def cpu_s(self) -> float | None:
        for h, d in self.dirs.items():
            if h.version == 2:
                usec = _read_key(d / "cpu.stat", "usage_usec")
                if usec is not None:
                    return usec / 1e6
        if a := self._dir("cpuacct"):
            try:
                return int((a[1] / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                pass
        return None

    def memory_bytes(self) -> int | None:
        """Current memory use (for watchers that need it)."""
        if m := self._dir("memory"):
            v, d = m
            try:
                return int((d / ("memory.current" if v == 2 else "memory.usage_in_bytes")).read_text())
            except (OSError, ValueError):
                pass
        return None

    def peak_memory(self) -> tuple[int | None, str | None]:
        """Peak memory of the run and the file it was read from."""
        if m := self._dir("memory"):
            v, d = m
            f = d / ("memory.peak" if v == 2 else "memory.max_usage_in_bytes")
            try:
                return int(f.read_text()), f"cgroup-v{v}:{f.name}"
            except (OSError, ValueError):
                pass
        return None, None

    def oom_kills(self) -> int:
        if m := self._dir("memory"):
            v, d = m
            f = d / ("memory.events" if v == 2 else "memory.oom_control")
            return _read_key(f, "oom_kill") or 0
        return 0

    def kill(self) -> None:
        """SIGKILL every process in the run's groups, repeating until none is left (or 2 s)."""
        for h, d in self.dirs.items():
            if h.version == 2 and (d / "cgroup.kill").exists():
                try:
                    (d / "cgroup.kill").write_text("1")
                except OSError:
                    pass
        end = time.monotonic() + 2.0
        pause = 0.001
        while self.pids() and time.monotonic() < end:
            for d in self.dirs.values():
                _kill_procs(d)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def remove(self) -> None:
        for d in self.dirs.values():
            _rmdir(d)


def disks() -> list[tuple[str, str]]:
    """(name, ``major:minor``) of every block device of the host that holds data (partitions are
    throttled through their disk)."""
    devs = []
    for b in sorted(Path("/sys/block").iterdir()):
        try:
            if int((b / "size").read_text()) > 0:
                devs.append((b.name, (b / "dev").read_text().strip()))
        except (OSError, ValueError):
            continue
    return devs


def _write_if_present(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except FileNotFoundError:
        pass
