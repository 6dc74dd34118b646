"""JSON-lines logs of one writer that a crash may cut: reads that drop a torn last line, appends
that remove it first, and any other damaged line named.

A process killed in the middle of an append (or stopped by a full disk) leaves the last line
without its newline. That is the record in flight, which the run redoes when it resumes:
:func:`read_records` drops it, and :func:`append_record` cuts it off before it writes, so the next
record is not glued to it (two records lost in one undecodable line, as a plain
``open(path, "a").write(...)`` after a crash gives). A damaged line anywhere else is not a crash's
doing: it is a ``ValueError`` naming the file and the line, never a record silently skipped or
replayed. One writer per file (a compare arm's folder is locked by the process training it).

Logs that many processes append to (the outcome table, ``wmrl_envs/replay.py``; the anchor pair
log, ``wmrl_envs/mixing/store.py``) cannot cut a torn line: it may be another writer's line still
being written. Their readers take only complete lines (:func:`complete_lines`), and an append under
the file's exclusive lock closes a torn line a killed writer left with a newline first
(:func:`append_shared`), so the next record starts its own line and the torn one is skipped as
damaged.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any


def _torn(f: IO[bytes]) -> bool:
    """Whether ``f`` ends in a line without its newline (read at its end, where it leaves ``f``)."""
    end = f.seek(0, os.SEEK_END)
    return bool(end) and (f.seek(end - 1), f.read(1))[1] != b"\n"


def append_record(path: str | os.PathLike, record: Any) -> None:
    """Append ``record`` as one JSON line, after cutting off a torn last line."""
    with open(path, "a+b") as f:
        if _torn(f):
            f.seek(0)
            f.truncate(f.read().rfind(b"\n") + 1)
        f.write(json.dumps(record).encode() + b"\n")


def read_records(path: str | os.PathLike) -> list[Any]:
    """Every complete record of ``path`` (none if it does not exist), in file order."""
    p = Path(path)
    if not p.exists():
        return []
    *lines, _torn = p.read_text().split("\n")  # the last piece: "" after a final newline, else a cut write
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            raise ValueError(f"{p}, line {n}: not a JSON record ({line[:60]!r}): the file is damaged; move it away "
                             "to redo what it logged") from None
    return out


def complete_lines(f: IO[bytes], offset: int) -> tuple[list[bytes], int]:
    """The complete lines of ``f`` after byte ``offset``, and the offset after the last of them (a
    line without its newline, still being written or left by a killed writer, is not read)."""
    f.seek(offset)
    data = f.read()
    complete = data[: data.rfind(b"\n") + 1]
    return complete.splitlines(), offset + len(complete)


def append_shared(f: IO[bytes], record: Any, sync: bool = False) -> int:
    """Append ``record`` as one JSON line to ``f`` (opened ``"a+b"``, held under the caller's
    exclusive lock), a torn last line closed off first; return the file's new end. ``sync``: fsync."""
    line = (b"\n" if _torn(f) else b"") + json.dumps(record).encode() + b"\n"
    end = f.tell()
    f.write(line)
    f.flush()
    if sync:
        os.fsync(f.fileno())
    return end + len(line)
