"""``wmrl predict``: a world model's prediction for one program, as JSON.

The task's context comes from ``--context`` (a TaskContext JSON file) or from the env that knows
``--task``: any task of any split of the embedded suites (``--suite`` defaults to the one that
lists the task), or of a prepared data folder (``--suite PATH``). A program that is not valid
UTF-8 is read with the bad bytes replaced. Exit status 0: a prediction; 1: the world model failed
(its server is down: the JSON says why and has no score); 2: bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from wmrl_envs.world_models.factory import SPECS

EMBEDDED = ("offline", "dsbench")
SPLITS = ("all", "train", "heldout", "test")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("predict", help="predict a program's outcome without running it",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="Python program to judge ('-' reads stdin)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--task", help="task id; its context comes from the env's reset info")
    src.add_argument("--context", help="a JSON file holding a TaskContext instead of --task")
    p.add_argument("--suite", help="offline, dsbench or a data folder (default: the embedded suite listing --task)")
    p.add_argument("--split", default="all", choices=SPLITS, help="split of an embedded suite (default: %(default)s)")
    p.add_argument("--env", help="env id that knows --task (default: WMRL/DSBench-v0 for dsbench, else WMRL/MLEDojo-v0)")
    p.add_argument("--world-model", default="static", metavar="SPEC", help=f"{SPECS} (default: %(default)s)")
    p.set_defaults(func=predict_command)


def suite_of(task_id: str, split: str = "all") -> str:
    """The embedded suite whose ``split`` lists ``task_id`` (``offline`` if none does)."""
    from wmrl_envs.mle.suites import list_specs

    return next((s for s in EMBEDDED if any(spec.id == task_id for spec in list_specs(s, split))), EMBEDDED[0])


def env_for(suite: str) -> str:
    """The env id that serves ``suite``."""
    return "WMRL/DSBench-v0" if suite == "dsbench" else "WMRL/MLEDojo-v0"


def task_context(env_id: str, task_id: str, suite: str | None = None, split: str = "all") -> dict[str, Any]:
    """The ``wm_context`` that ``env_id`` (on ``suite`` and ``split``) gives for ``task_id`` at reset.

    Only that task is loaded; an unknown id is a ``ValueError`` that lists the valid ones."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401  (registers the env ids)

    kwargs: dict[str, Any] = {"split": split, "tasks": [task_id], **({"suite": suite} if suite else {})}
    env = gym.make(env_id, **kwargs)
    try:
        _, info = env.reset(seed=0, options={"task_id": task_id})
    finally:
        env.close()
    return dict(info["wm_context"])


def predict_command(args: argparse.Namespace) -> int:
    from wmrl_envs.world_models.factory import make_world_model
    from wmrl_envs.world_models.screening import safe_predict

    code = _decode(sys.stdin.buffer.read()) if args.file == "-" else _read(Path(args.file))
    try:
        if args.context:
            context = json.loads(_read(Path(args.context)))
        else:
            suite = args.suite or suite_of(args.task, args.split)
            context = task_context(args.env or env_for(suite), args.task, suite, args.split)
        pred = safe_predict(make_world_model(args.world_model), context, code)
    except ValueError as e:
        print(f"wmrl predict: {e}", file=sys.stderr)
        return 2
    print(json.dumps(_report(pred, context, args.world_model), indent=2))
    if pred.failed is not None:
        print(f"wmrl predict: the world model failed, no prediction: {pred.failed}", file=sys.stderr)
        return 1
    return 0


def _report(pred: Any, context: dict[str, Any], world_model: str) -> dict[str, Any]:
    return {
        "task_id": context.get("task_id"),
        "world_model": world_model,
        "score": None if pred.failed is not None else pred.score,
        "failed": pred.failed,
        "checks": {k: {"p_pass": v.p_pass, "reason": v.reason, "parse_failed": v.parse_failed}
                   for k, v in pred.checks.items()},
        "feedback": pred.feedback,
        "cost_s": pred.cost_s,
    }


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _read(path: Path) -> str:
    if not path.is_file():
        raise SystemExit(f"wmrl predict: no such file: {path}")
    return _decode(path.read_bytes())
