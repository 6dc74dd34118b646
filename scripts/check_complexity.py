"""Fails when a function of wmrl_envs or wmrl_agents has cyclomatic complexity over 25 (radon).

``wmrl_envs/world_models/analysis/`` is left out: its visitor methods dispatch on AST node kinds and
have their own plan (docs/architecture.md, "The analysis mixins"). Nothing else is: a function over
the limit is split into named helpers, not listed here.

    .venv/bin/python scripts/check_complexity.py        # exit 1 and one line per function over
"""

from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wmrl_envs", "wmrl_agents")
EXCLUDED = ("wmrl_envs/world_models/analysis/",)
LIMIT = 25


def complexities(root: Path = ROOT) -> dict[str, int]:
    """``path:qualified name`` -> cyclomatic complexity of every function and method in the packages."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(EXCLUDED):
                continue
            for block in cc_visit(path.read_text()):
                if isinstance(block, Function):
                    out[f"{rel}:{block.fullname}"] = block.complexity
    return out


def problems(found: dict[str, int]) -> list[str]:
    """One line per function over the limit."""
    return [f"{name}: cyclomatic complexity {cc} > {LIMIT}; split it into named helpers"
            for name, cc in sorted(found.items()) if cc > LIMIT]


def main() -> int:
    errors = problems(complexities())
    for line in errors:
        print(line, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
