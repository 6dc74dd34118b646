"""``wmrl predict``: a world model's prediction for one program, as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from wmrl_envs.world_models.factory import SPECS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("predict", help="predict a program's outcome without running it",
                              description=__doc__)
    p.add_argument("file", help="Python program to judge ('-' reads stdin)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--task", help="task id; its context comes from the env's reset info")
    src.add_argument("--context", help="a JSON file holding a TaskContext instead of --task")
    p.add_argument("--env", default="WMRL/MLEDojo-v0", help="env id that knows --task (default: %(default)s)")
    p.add_argument("--world-model", default="static", metavar="SPEC", help=f"{SPECS} (default: %(default)s)")
    p.set_defaults(func=predict_command)


def task_context(env_id: str, task_id: str) -> dict[str, Any]:
    """The ``wm_context`` an env gives for ``task_id`` at reset."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401  (registers the env ids)

    env = gym.make(env_id)
    try:
        _, info = env.reset(seed=0, options={"task_id": task_id})
    finally:
        env.close()
    return dict(info["wm_context"])


def predict_command(args: argparse.Namespace) -> int:
    from wmrl_envs.world_models.factory import make_world_model

    code = sys.stdin.read() if args.file == "-" else _read(Path(args.file))
    if args.context:
        context = json.loads(_read(Path(args.context)))
    else:
        context = task_context(args.env, args.task)
    try:
        pred = make_world_model(args.world_model).predict(context, code)
    except ValueError as e:
        print(f"wmrl predict: {e}", file=sys.stderr)
        return 2
    out = {
        "task_id": context.get("task_id"),
        "world_model": args.world_model,
        "score": pred.score,
        "checks": {k: {"p_pass": v.p_pass, "reason": v.reason, "parse_failed": v.parse_failed}
                   for k, v in pred.checks.items()},
        "feedback": pred.feedback,
        "cost_s": pred.cost_s,
    }
    print(json.dumps(out, indent=2))
    return 0


def _read(path: Path) -> str:
    if not path.is_file():
        raise SystemExit(f"wmrl predict: no such file: {path}")
    return path.read_text(encoding="utf-8")
