"""Shared output for benchmarks: a plain-text table on stdout and a JSON file."""

from __future__ import annotations

import json
import platform
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent / "out"


def table(rows: list[dict], columns: list[str]) -> str:
    cells = [[c for c in columns]] + [[_fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "-" if v is None else str(v)


def write_json(name: str, payload: dict, out_dir: Path | None = None) -> Path:
    out = Path(out_dir or OUT_DIR)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"machine": {"python": platform.python_version(), "cpu": platform.processor()}, **payload}
    path = out / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2))
    return path
