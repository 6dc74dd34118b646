"""Where a :class:`~wmrl_envs.mixing.state.MixingState` lives on disk, so that a killed run loses no
pair, a resumed one adds none twice, and many processes share one run.

- **Anchor pairs** go to an append-only log beside ``state_path`` (``<state_path>.pairs.jsonl``,
  :class:`PairLog`), one JSON line per pair, appended under an exclusive ``flock``. Every process
  reads the log in file order, so all of them fit the same map on the same pairs. Each pair id is
  logged once: the state names a pair by what makes its episode unique (``mixing/state.py``), so a
  replayed episode finds its id in the log and adds nothing.
- **The rest** (anchor decisions, counts, open groups, weights, monitor, controller) is a snapshot
  written atomically to ``state_path`` (:meth:`Snapshot.save`): a crash leaves the old or the new
  file. The pair log holds the pairs, so the snapshot leaves the debiaser's out.
- **Counts across processes**: the snapshot's ``counts`` are the sums over every process that
  writes it, and ``writers`` holds each one's own (merged under an ``flock`` on
  ``<state_path>.lock`` at every write), so ``counts["anchor_pairs"]`` equals the pair log's lines
  and ``counts["episodes"]`` the finished episodes of all workers. A process is named by its
  ``RANK`` (torch.distributed, accelerate) or else by host and pid. On loading
  (:meth:`Snapshot.own_counts`), a process takes back its own entry (same ``RANK``); for a process
  without a rank, a snapshot of one writer that is not a live process here is a resumed run and is
  taken over; otherwise (a second worker joining, several processes restarted without ranks) the
  process starts its own counts at zero beside the others'. Everything else in the snapshot is its
  last writer's.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import tempfile
from pathlib import Path

from wmrl_envs.jsonl import append_shared, complete_lines

from .config import MixingConfig, saved_config

log = logging.getLogger(__name__)

PairRecord = tuple[str, float, float, "str | None"]
"""An anchor pair as the log holds it: ``(id, s, y, task)``."""


class PairLog:
    """Anchor pairs ``(id, s, y)`` that any number of processes append to one file, each id once."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.offset = 0
        self.ids: set[str] = set()
        self.appended = False  # whether the last sync appended its pair

    def sync(self, pair: PairRecord | None = None) -> list[PairRecord]:
        """Read the pairs other writers added since the last call, then append ``pair`` unless its
        id is already there; return every new ``(id, s, y, task)`` in file order (``pair``'s last)."""
        self.appended = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                new = self._read(f)
                if pair is not None and pair[0] not in self.ids:
                    pair_id, s, y, task = pair
                    record = {"id": pair_id, "s": s, "y": y, **({} if task is None else {"task": task})}
                    self.offset = append_shared(f, record, sync=True)
                    self.ids.add(pair_id)
                    new.append(pair)
                    self.appended = True
                return new
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _read(self, f) -> list[PairRecord]:
        lines, self.offset = complete_lines(f, self.offset)
        out = []
        for line in lines:
            try:
                rec = json.loads(line)
                pid, s, y = str(rec["id"]), float(rec["s"]), float(rec["y"])
                task = None if rec.get("task") is None else str(rec["task"])
            except (ValueError, KeyError, TypeError):
                log.warning("mixing: skipped a damaged line in %s", self.path)
                continue
            if pid not in self.ids:
                self.ids.add(pid)
                out.append((pid, s, y, task))
        return out


class Snapshot:
    """The snapshot at ``path``, the pair log beside it, and this process's name among its writers."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.pairs = PairLog(f"{self.path}.pairs.jsonl")
        self.writer = _writer_id()
        self.replaces: str | None = None  # the finished writer whose counts this process took over

    def load(self, config: MixingConfig) -> dict | None:
        """The snapshot (None if there is none yet); a corrupt one, or one another configuration
        wrote, is a ``ValueError`` naming the path and the reason (a run never silently starts over)."""
        if not self.path.exists():
            return None
        try:
            state = json.loads(self.path.read_text())
            if not isinstance(state, dict) or "sampler" not in state:
                raise ValueError("it is not a mixing-state snapshot")
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise ValueError(f"cannot resume from the mixing state {self.path}: {e}; "
                             "move it away to start a new run") from None
        saved = state.get("config")
        if saved is not None:
            saved = saved_config(saved)  # a name since deprecated is the same setting
            mine = config.to_dict()
            diff = [f"{k}={saved[k]!r} (this run: {mine[k]!r})" for k in mine if k in saved and saved[k] != mine[k]]
            if diff:
                raise ValueError(f"the mixing state {self.path} was written by another configuration: "
                                 f"{', '.join(diff)}; use the same MixingConfig or another state_path")
        return state

    def own_counts(self, snapshot: dict) -> dict:
        """This process's counts in a loaded snapshot (module docstring, "Counts across processes")."""
        writers = snapshot.get("writers")
        if writers is None:  # written before counts were merged: one writer's
            return {**zero_counts(), **snapshot["counts"]}
        if self.writer in writers:
            return {**zero_counts(), **writers[self.writer]}
        ranked = self.writer.startswith("rank")  # another rank's entry is never this process's
        if len(writers) == 1 and not ranked and not _alive(next(iter(writers))):
            self.replaces = next(iter(writers))  # its entry becomes this process's
            return {**zero_counts(), **writers[self.replaces]}
        return zero_counts()

    def save(self, state: dict, counts: dict) -> None:
        """Write ``state`` (without the debiaser: the pair log holds the pairs) atomically, with
        ``counts`` as this process's entry in ``writers`` and ``counts`` summed over the writers."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.path}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                on_disk = self._writers_on_disk()
                if self.replaces is not None:
                    on_disk.pop(self.replaces, None)
                writers = {**on_disk, self.writer: dict(counts)}
                total: dict[str, int] = {}
                for each in writers.values():
                    for k, v in each.items():
                        total[k] = total.get(k, 0) + v
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".mixstate-")
                with os.fdopen(fd, "w") as f:
                    json.dump({**state, "debiaser": None, "counts": total, "writers": writers}, f)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _writers_on_disk(self) -> dict[str, dict]:
        """The per-process counts the snapshot on disk holds (none if it is missing or unreadable)."""
        try:
            writers = json.loads(self.path.read_text()).get("writers")
        except (OSError, ValueError, AttributeError):
            return {}
        return writers if isinstance(writers, dict) else {}


def zero_counts() -> dict[str, int]:
    return {"episodes": 0, "anchor_episodes": 0, "real_steps": 0, "predicted_steps": 0, "anchor_pairs": 0,
            "groups_completed": 0}


def _writer_id() -> str:
    """This process's name in the snapshot's ``writers``: its ``RANK``, else host and pid."""
    rank = os.environ.get("RANK")
    return f"rank{rank}" if rank is not None else f"{socket.gethostname()}:{os.getpid()}"


def _alive(writer: str) -> bool:
    """Whether ``writer`` names a process running on this host now (a rank: unknown, so no)."""
    host, _, pid = writer.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
