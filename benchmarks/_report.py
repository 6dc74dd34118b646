"""Shared output for benchmarks: a plain-text table on stdout and a JSON file."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from wmrl_envs.report import format_table as table  # noqa: F401 - re-exported for the scripts
from wmrl_envs.world_models.recorded import source_hash

OUT_DIR = Path(__file__).resolve().parent / "out"


def write_json(name: str, payload: dict, out_dir: Path | None = None) -> Path:
    out = Path(out_dir or OUT_DIR)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"machine": {"python": platform.python_version(), "cpu": platform.processor()},
               "code": source_hash("wmrl_envs", "wmrl_agents"), **payload}  # as compare's results record it
    path = out / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2))
    return path
