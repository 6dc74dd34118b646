"""JSON-lines logs of one writer that a crash may cut: reads that drop a torn last line, appends
that remove it first, and any other damaged line named.

A process killed in the middle of an append (or stopped by a full disk) leaves the last line
without its newline. That is the record in flight, which the run redoes when it resumes:
:func:`read_records` drops it, and :func:`append_record` cuts it off before it writes, so the next
record is not glued to it (two records lost in one undecodable line, as a plain
``open(path, "a").write(...)`` after a crash gives). A damaged line anywhere else is not a crash's
doing: it is a ``ValueError`` naming the file and the line, never a record silently skipped or
replayed. One writer per file (a compare arm's folder is locked by the process training it); the
outcome table, which many processes append to, has its own rule (``wmrl_envs/replay.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def append_record(path: str | os.PathLike, record: Any) -> None:
    """Append ``record`` as one JSON line, after cutting off a torn last line."""
    with open(path, "a+b") as f:
        end = f.seek(0, os.SEEK_END)
        if end and (f.seek(end - 1), f.read(1))[1] != b"\n":
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
