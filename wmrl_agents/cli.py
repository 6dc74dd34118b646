"""The agents' subcommands: ``wmrl compare`` (real-execution GRPO against WMRL, side by side: the
project's main job), ``wmrl train`` (train an LLM policy) and ``wmrl dataset`` (prompts for ``trl grpo``)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    _register_compare(sub)
    _register_train(sub)
    _register_dataset(sub)


def _register_compare(sub: argparse._SubParsersAction) -> None:
    from wmrl_agents.compare_config import CompareConfig
    from wmrl_agents.config_flags import add_arguments

    p = sub.add_parser(
        "compare",
        help="train an agent with real-execution GRPO and with WMRL; compare score and compute",
        description="Real-execution GRPO against WMRL, side by side (the project's main job). Every flag is a field "
        "of wmrl_agents.compare_config.CompareConfig; the settings are saved to --out/config.yaml, and a rerun on "
        "the same folder resumes it (other settings are refused).",
    )
    add_arguments(p, CompareConfig)
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    from wmrl_agents.compare import per_task_table, table
    from wmrl_agents.compare_config import CompareConfig, run_compare
    from wmrl_agents.config_flags import from_args
    from wmrl_agents.health import PreflightError

    try:
        config = from_args(CompareConfig, args)
        results = run_compare(config)
    except PreflightError as e:
        return _fail("compare", e.problems)
    except ValueError as e:  # a bad argument, task suite or executor: say it, no traceback
        return _fail("compare", [str(e)])
    print(table(results))
    print(f"\n{per_task_table(results)}")
    score = "expected real-execution score" if config.text else "success from held-out init states"
    print(f"\nheld-out: {score}; [a, b]: 95% interval over seeds; Δ: paired difference to real;"
          f" ratio: real's compute / the arm's (none where an arm ran no program); wall time {results['wall_s'] / 60:.1f} min")
    z = results.get("warm_zygotes") or {}
    if z.get("runs"):
        print(f"warm sandbox: {z['zygotes']} zygote(s), {z['startup_cpu_s']:.1f} CPU-s of start-up and "
              f"{z['zygote_cpu_s']:.1f} in all over {z['runs']} runs ({z['zygote_cpu_s'] / z['runs'] * 1e3:.0f} ms "
              "per run), charged to the runs' sandbox CPU")
    if config.out:
        print(f"wrote {config.out}/config.yaml, {config.out}/results.json and {config.out}/compare.png")
    return 0


def _fail(command: str, problems: list[str]) -> int:
    for p in problems:
        print(f"wmrl {command}: {p}", file=sys.stderr)
    return 2


def _register_train(sub: argparse._SubParsersAction) -> None:
    from wmrl_agents.train import __doc__ as doc
    from wmrl_agents.train import add_arguments

    p = sub.add_parser("train", help="train an LLM policy with GRPO or WMRL (TRL, or the project's trainer)",
                       description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    p.set_defaults(func=_train)


def _train(args: argparse.Namespace) -> int:
    from wmrl_agents.health import PreflightError
    from wmrl_agents.train import config_from_args, format_summary, train

    try:
        summary = train(config_from_args(args))
    except PreflightError as e:
        return _fail("train", e.problems)
    except ValueError as e:  # a bad setting, env or task: say it, no traceback
        return _fail("train", [str(e)])
    print(format_summary(summary))
    return 0


def _register_dataset(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dataset", help="export a text env's prompts for `trl grpo --dataset_name DIR`",
                       description="Write DIR/train.jsonl: one prompt per seed (chat messages, seed, task_id, group), "
                       "the dataset that wmrl_agents.rewards' reward functions score.")
    p.add_argument("--env", default="WMRL/MLEDojo-v0", help="the text env id (default: %(default)s)")
    p.add_argument("--tasks", default=None, help="comma-separated task ids (default: every task of the split)")
    p.add_argument("--split", default="train", help="the env's split (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=256, help="prompts: seeds 0..N-1 (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="DIR", help="the dataset folder")
    p.set_defaults(func=_dataset)


def _dataset(args: argparse.Namespace) -> int:
    from wmrl_agents.rewards import export_dataset
    from wmrl_agents.train import comma_list

    try:
        path = export_dataset(args.out, args.env, args.seeds, comma_list(args.tasks or ""), args.split)
    except ValueError as e:
        return _fail("dataset", [str(e)])
    print(f"wrote {args.seeds} prompts to {path}")
    return 0
