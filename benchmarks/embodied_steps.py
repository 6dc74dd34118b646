"""Simulator steps of a finished ``wmrl compare --env WMRL/LIBERO-Long-v0`` run, per arm and seed,
and real GRPO's steps over each arm's: the compute ratio that no machine load changes.

    python benchmarks/embodied_steps.py OUT [OUT ...]

``compare``'s own ratio counts simulator *seconds*, which are wall time: arms run beside other
jobs (or another arm's process) are stretched unequally. Steps count the same work on any machine.
Reads ``OUT/seed*/ARM/metrics.jsonl`` (the last row of each update, as a resumed run may repeat one)
and prints a table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _report import table  # noqa: E402


def arm_steps(folder: Path) -> int:
    """Simulator steps of one finished arm (each update's last row)."""
    rows = {}
    for line in (folder / "metrics.jsonl").read_text().splitlines():
        row = json.loads(line)
        rows[row["update"]] = row
    return int(sum(r["cost/sim_steps"] for r in rows.values()))


def main() -> None:
    for out in map(Path, sys.argv[1:]):
        steps: dict[str, list[int]] = {}
        for seed in sorted(out.glob("seed*")):
            for arm in sorted(p for p in seed.iterdir() if (p / "result.json").exists()):
                steps.setdefault(arm.name, []).append(arm_steps(arm))
        if "real" not in steps:
            raise SystemExit(f"{out}: no finished real arm")
        real = sum(steps["real"]) / len(steps["real"])
        rows = [{"run": out.name, "arm": arm, "seeds": len(v), "sim_steps": " / ".join(map(str, v)),
                 "mean": sum(v) / len(v), "real / arm": real / (sum(v) / len(v))} for arm, v in steps.items()]
        print(table(rows, ["run", "arm", "seeds", "sim_steps", "mean", "real / arm"]))


if __name__ == "__main__":
    main()
