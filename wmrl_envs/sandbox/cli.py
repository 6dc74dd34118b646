"""``wmrl sandbox FILE``: run one Python program in the sandbox and print its RunResult as JSON."""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import replace
from pathlib import Path

from .base import Job, Limits
from .factory import BACKENDS, make_executor


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sandbox",
        help="run a Python program in the sandbox; print the result as JSON",
        description=__doc__,
    )
    p.add_argument("file", type=Path, help="the Python program to run")
    p.add_argument("--data", type=Path, help="folder mounted read-only at data/ in the workspace")
    p.add_argument("--time-limit", type=float, help="wall-clock seconds (default %(default)s)", default=Limits.wall_s)
    p.add_argument("--cpu-limit", type=float, help="CPU seconds (default: the time limit)")
    p.add_argument("--memory-mb", type=int, default=Limits.memory_mb, help="memory limit (default %(default)s)")
    p.add_argument("--executor", default="auto", choices=["auto", *BACKENDS], help="backend (default: auto)")
    p.add_argument("--allow-unsafe", action="store_true", help="permit the local backend (no isolation)")
    p.add_argument("--collect", nargs="*", default=["submission.csv"], help="workspace files to copy out")
    p.add_argument("--with-files", action="store_true", help="print collected files' text, not sizes")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if not args.file.is_file():
        raise SystemExit(f"wmrl sandbox: {args.file} is not a file")
    limits = replace(
        Limits(),
        wall_s=args.time_limit,
        cpu_s=args.cpu_limit or args.time_limit,
        memory_mb=args.memory_mb,
    )
    try:
        ex = make_executor(args.executor, limits=limits, allow_unsafe=args.allow_unsafe)
        job = Job(code=args.file.read_text(), data_dir=args.data, collect=tuple(args.collect))
    except (ValueError, RuntimeError) as e:
        raise SystemExit(f"wmrl sandbox: {e}") from None
    result = ex.run(job)
    print(json.dumps(result.to_dict(with_files=args.with_files), indent=2))
    return 0 if result.ok else 1
