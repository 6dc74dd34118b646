"""``wmrl tasks``, ``wmrl run-code`` and ``wmrl build-leaderboards``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from wmrl_envs.mle.spec import SPLITS, SUITES, list_specs


def _tasks(args: argparse.Namespace) -> int:
    if args.suite in SUITES:
        rows = [
            (s.id, s.split, s.task_type, s.metric, s.name)
            for s in list_specs(args.suite, args.split)
        ]
        problems = {}
    else:
        import warnings

        from wmrl_envs.mle.suites import load_suite

        with warnings.catch_warnings():  # the problems are printed below
            warnings.simplefilter("ignore", RuntimeWarning)
            suite = load_suite(
                args.suite, progress=False, mledojo=args.mledojo, alignment=args.alignment, mlebench=args.mlebench
            )
        rows = [
            (t.id, t.suite, t.task_type, t.metric.name, f"{t.name} [graded by {_grader(t)}]")
            for t in suite.tasks.values()
        ]
        problems = suite.problems
    width = max((len(r[0]) for r in rows), default=4)
    print(f"{'task':<{width}}  {'split':<9} {'type':<10} {'metric':<9} name")
    for r in rows:
        print(f"{r[0]:<{width}}  {r[1]:<9} {r[2]:<10} {r[3]:<9} {r[4]}")
    print(f"{len(rows)} task(s)")
    if problems:
        print(f"\n{len(problems)} task(s) cannot be loaded or graded:")
        for task_id, why in problems.items():
            print(f"  {task_id}: {why}")
    return 0


def _grader(task) -> str:
    """Which grader applies: the task's script, the benchmark's checkout, wmrl's registry (exact
    where every differential case agrees with MLE-Dojo), or a built-in metric."""
    from wmrl_envs.mle.graders import DSBenchScript, MLEDojoMetric, RegistryScore
    from wmrl_envs.mle.mlebench_graders import MLEBenchCheckout, MLEBenchRules

    if isinstance(task.grader, MLEBenchCheckout):
        return "mle-bench's checkout"
    if isinstance(task.grader, MLEBenchRules):
        note = f" ({task.grader.rule.note})" if task.grader.rule.note else ""
        return f"mle-bench's rules (wmrl's copy of its grade.py), benchmark-exact{note}"
    if task.suite == "mle-bench" and isinstance(task.grader, RegistryScore):
        return "the registry standing in for mle-bench (MLE-Dojo's metric, not mle-bench's grade.py: an approximation)"
    if isinstance(task.grader, DSBenchScript):
        return "the task's script"
    if isinstance(task.grader, MLEDojoMetric):
        return "the benchmark's checkout"
    if isinstance(task.grader, RegistryScore):
        why = task.grader.entry.approximate
        return f"the registry, an approximation ({why})" if why else "the registry, benchmark-exact"
    return f"wmrl's {task.metric.name} metric"


def _run_code(args: argparse.Namespace) -> int:
    code = Path(args.file).read_text()
    env = _env_class(args.suite)(
        suite=args.suite,
        split="all",
        tasks=[args.task],
        reward_mode=args.reward_mode,
        executor=args.executor,
        mledojo=args.mledojo,
        alignment=args.alignment,
        mlebench=args.mlebench,
    )
    try:
        _, info = env.reset(options={"task_id": args.task})
        _, reward, _, _, info = env.step(code)
    finally:
        env.close()
    run = env.unwrapped.last_run  # the full RunResult (stdout, stderr): info["run"] summarises it
    out = {
        "task_id": args.task,
        "status": info["status"],
        "timed_out": info["timed_out"],
        "score": info["score"],
        "paid_score": info.get("paid_score"),
        "blank_predictions": info.get("blank_predictions", 0),
        "reward": reward,
        "reward_mode": env.reward_mode,
        "percentile": info.get("percentile"),
        "position": info.get("position"),
        "medal": info.get("medal"),
        "rpg": info.get("rpg"),
        "alignment": info.get("alignment"),
        "feedback": info["feedback"],
        "run": run.to_dict() if run is not None else None,
    }
    print(json.dumps(out, indent=2))
    return 0 if info["status"] == "ok" else 1


def _env_class(suite: str):
    """DSBenchEnv for the embedded DSBench suite and DSBench folders, MLEDojoEnv otherwise."""
    from wmrl_envs.mle.env import DSBenchEnv, MLEDojoEnv
    from wmrl_envs.mle.layouts import find_tasks

    if suite in SUITES:
        return DSBenchEnv if suite == "dsbench" else MLEDojoEnv
    return DSBenchEnv if find_tasks(suite)[0].layout == "dsbench" else MLEDojoEnv


def _build_leaderboards(args: argparse.Namespace) -> int:
    from wmrl_envs.mle.boards import build_leaderboards

    suites = list(SUITES) if args.suite == "all" else [args.suite]
    rows = build_leaderboards(suites, args.tasks or None, args.seed, args.threads)
    for r in rows:
        print(
            f"{r['task']:<22} {r['metric']:<9} best {r['best']:<10.4g} default RF {r['default_rf']:<10.4g} "
            f"(pct {r['default_rf_percentile']:.2f})  default linear {r['default_linear']:<10.4g} "
            f"(pct {r['default_linear_percentile']:.2f})"
        )
    return 0


def _friendly(handler):
    """Report a user's mistake (unknown task, bad path, missing data package) without a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (ValueError, ImportError, OSError) as e:
            print(f"wmrl {args.command}: error: {e}", file=sys.stderr)
            return 2

    return run


def _folder_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mledojo",
        default=None,
        help="an MLE-Dojo checkout: grade its competitions with their own metric classes "
        "(default: $MLEDOJO_HOME; an importable mledojo is never used)",
    )
    p.add_argument(
        "--mlebench",
        default=None,
        help="an mle-bench checkout: grade MLE-bench folders with its grade functions "
        "(default: $MLEBENCH_HOME; an importable mlebench is never used)",
    )
    p.add_argument(
        "--alignment",
        default=None,
        choices=("position", "id"),
        help="DSBench folders: compare rows by position as DSBench does (default) or by id",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ML-engineering subcommands to the ``wmrl`` parser."""
    p = subparsers.add_parser("tasks", help="list the tasks of an ML-engineering suite")
    p.add_argument(
        "--suite",
        default="offline",
        help="offline, dsbench, or a path to prepared MLE-Dojo, MLE-bench or DSBench data",
    )
    p.add_argument("--split", default="all", choices=SPLITS)
    _folder_options(p)
    p.set_defaults(func=_friendly(_tasks))

    p = subparsers.add_parser(
        "run-code", help="run one program on a task through the env and grade it"
    )
    p.add_argument("file", help="Python file to run")
    p.add_argument("--task", required=True, help="task id (see `wmrl tasks`)")
    p.add_argument("--suite", default="offline", help="offline, dsbench, or a data path")
    p.add_argument(
        "--executor", default="auto", help="sandbox backend (auto, warm, bwrap, gvisor, docker, local)"
    )
    p.add_argument(
        "--reward-mode",
        default=None,
        choices=("percentile", "position", "medal", "rpg", "raw"),
        help="default: the env's own, rpg for folders without leaderboards (DSBench)",
    )
    _folder_options(p)
    p.set_defaults(func=_friendly(_run_code))

    p = subparsers.add_parser(
        "build-leaderboards", help="rebuild the offline leaderboards from the recipe"
    )
    p.add_argument("--suite", default="all", choices=(*SUITES, "all"))
    p.add_argument("--tasks", nargs="*", help="only these task ids")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--threads", type=int, default=1, help="BLAS/OpenMP threads for the reference models"
    )
    p.set_defaults(func=_friendly(_build_leaderboards))
