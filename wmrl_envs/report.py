"""Plain-text tables for the CLI and the benchmarks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def fmt(v) -> str:
    if isinstance(v, bool) or v is None:
        return "-" if v is None else str(v)
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"
    return str(v)


def format_table(rows: Sequence[Mapping], columns: Sequence[str]) -> str:
    """Right-aligned columns under a header and a rule."""
    cells = [list(columns)] + [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
