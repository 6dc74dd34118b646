"""The agents' subcommands: ``wmrl compare`` (real-execution GRPO against WMRL, side by side: the
project's main job), ``wmrl train`` (train an LLM policy) and ``wmrl dataset`` (prompts for ``trl grpo``)."""

from __future__ import annotations

import argparse
import sys

from wmrl_agents.compare import AGENTS, ARMS, GUARD
from wmrl_agents.compare_libero import AGENTS as LIBERO_AGENTS
from wmrl_agents.compare_libero import ENV_ID as LIBERO


def register(sub: argparse._SubParsersAction) -> None:
    _register_compare(sub)
    _register_train(sub)
    _register_dataset(sub)


def _register_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="train an agent with real-execution GRPO and with WMRL; compare score and compute",
        description="Real-execution GRPO against WMRL, side by side (the project's main job).",
    )
    p.add_argument("--budget", type=float, default=1.0,
                   help=f"scales the number of policy updates (default 1.0: 20 updates; {LIBERO}: 8)")
    p.add_argument("--agent", default=None,
                   help=f"the policy to train: text envs {', '.join(AGENTS)} (default: composer; see the README for "
                   f"why); {LIBERO}: {', '.join(LIBERO_AGENTS)} (default: bc, the SFT policy) ")
    p.add_argument("--model", default=None, metavar="PATH", help="--agent llm: a local Hugging Face model folder")
    p.add_argument("--max-new-tokens", type=int, default=None,
                   help="--agent llm: most tokens per program (default: 512 × --budget up to 1, at least 32; "
                   "docs/llm.md says how the budget scales an LLM)")
    p.add_argument("--env", default="WMRL/MLEDojo-v0", help=f"the training env id: a text env, or {LIBERO}")
    p.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated arms from {ARMS} (and {GUARD})")
    p.add_argument("--seeds", type=int, default=1,
                   help="seeds 0..N-1 per arm; tables give mean and 95%% interval (default: 1)")
    p.add_argument("--eval-every", type=int, default=None,
                   help=f"updates between held-out evaluations (curve points; default: 10; {LIBERO}: 4)")
    p.add_argument("--eval-samples", type=int, default=None,
                   help="sampled programs per held-out task for policies that cannot be enumerated (default: 2; "
                   "--agent llm: floor(2 × --budget) up to 2); "
                   f"{LIBERO}: sampled episodes per held-out init state besides the mean action (default: 0)")
    p.add_argument("--dsbench", action="store_true", help="also score every arm on WMRL/DSBench-v0 at the end")
    p.add_argument("--time-limit", type=float, default=20.0,
                   help="CPU-seconds a program may run in training and evaluation (default: %(default)s; the tasks' own: 60)")
    p.add_argument("--workers", type=int, default=None, help="sandboxes run at once (default: 2)")
    p.add_argument("--executor", default="auto", help="sandbox backend: auto, warm, bwrap, docker, ray, local")
    p.add_argument("--out", default=None, help="write DIR/results.json and DIR/compare.png")
    p.add_argument("--world-model", default=None, metavar="SPEC",
                   help="the WMRL arms' world model: static (default), learned (fits on the anchor pairs), "
                   "proxy[:rows=N,board=proxy|task] (runs "
                   "each distinct program once on a split of the public train file; costs a sandbox run), or an LLM "
                   f"spec as in `wmrl predict`; {LIBERO}: predicate (default) or robometer:PATH")
    p.add_argument("--anchor-rate", type=float, default=0.1,
                   help="share of groups the WMRL arms execute for real (default: %(default)s)")
    p.add_argument("--adaptive", action="store_true",
                   help="let the exploitation monitor move the anchor rate between --min-rate and --max-rate")
    p.add_argument("--min-rate", type=float, default=0.05, help="lowest adaptive anchor rate (default: %(default)s)")
    p.add_argument("--max-rate", type=float, default=0.5, help="highest adaptive anchor rate (default: %(default)s)")
    e = p.add_argument_group(f"{LIBERO}")
    e.add_argument("--tasks", default="2,5",
                   help="comma-separated libero_10 task indices (default: %(default)s, "
                   "where the SFT policy sometimes succeeds)")
    e.add_argument("--demos", default=None, metavar="FILE",
                   help="expert demonstrations for the SFT policy (default: recorded into the cache on first use)")
    e.add_argument("--wm-horizon", type=int, default=100, help="steps of a world-model episode (default: %(default)s)")
    e.add_argument("--max-steps", type=int, default=400, help="the env's episode length (default: %(default)s)")
    e.add_argument("--eval-inits", type=int, default=3,
                   help="held-out init states per task scored at every checkpoint (default: %(default)s)")
    e.add_argument("--bc-epochs", type=int, default=100,
                   help="behaviour-cloning epochs of the SFT policy (default: %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_compare)


def _agent(args: argparse.Namespace):
    """``--agent`` of a text env (default: composer), with ``llm`` built from ``--model``."""
    if args.agent != "llm":
        return args.agent or "composer"
    from wmrl_agents.compare_text import llm_budget
    from wmrl_agents.train import llm_agent

    root = None if args.out is None else f"{args.out}/llm-checkpoints"
    return llm_agent(args.model, root, max_new_tokens=llm_budget(args.budget, args.max_new_tokens)[0])


def _world(args: argparse.Namespace):
    """The env family's adapter built from the flags."""
    if args.env == LIBERO:
        from wmrl_agents.compare_libero import LiberoWorld

        return LiberoWorld(tasks=[t.strip() for t in args.tasks.split(",") if t.strip()], agent=args.agent or "bc",
                           demos=args.demos, world_model=args.world_model or "predicate", wm_horizon=args.wm_horizon,
                           max_steps=args.max_steps, eval_inits=args.eval_inits, bc_epochs=args.bc_epochs,
                           progress=not args.quiet)
    from wmrl_agents.compare import program_limits
    from wmrl_agents.compare_text import TextWorld

    return TextWorld(args.env, _agent(args), args.world_model or "static",
                     {**program_limits(args.time_limit), "executor": args.executor}, args.workers or 2,
                     dsbench=args.dsbench, progress=not args.quiet)


def _budget_defaults(args: argparse.Namespace, text: bool) -> dict:
    """The env family's default budget; ``--eval-every`` overrides its curve spacing."""
    from wmrl_agents.compare_libero import BUDGET

    defaults = {"eval_every": 10} if text else dict(BUDGET)
    return {**defaults, **({"eval_every": args.eval_every} if args.eval_every is not None else {})}


def _compare(args: argparse.Namespace) -> int:
    from wmrl_agents.compare import LLM_NEEDS_MODEL, Budget, compare, per_task_table, table
    from wmrl_agents.health import preflight
    from wmrl_envs.mixing import MixingConfig

    if args.agent == "llm" and not args.model:
        return _fail("compare", [LLM_NEEDS_MODEL])
    text = args.env != LIBERO
    problems = preflight(model=args.model if args.agent == "llm" else None,
                         world_model=(args.world_model or "static") if text else None,
                         executor=args.executor if text else None)
    if problems:
        return _fail("compare", problems)
    try:
        mixing = MixingConfig(anchor_rate=args.anchor_rate, adaptive=args.adaptive,
                              min_rate=args.min_rate, max_rate=args.max_rate)
        samples = args.eval_samples if args.eval_samples is not None else (2 if text else 0)
        if text and args.agent == "llm":
            from wmrl_agents.compare_text import llm_budget

            samples = llm_budget(args.budget, args.max_new_tokens, args.eval_samples)[1]
        budget = Budget(**_budget_defaults(args, text), eval_samples=samples).scaled(args.budget)
        results = compare(budget=budget, arms=tuple(a.strip() for a in args.arms.split(",") if a.strip()),
                          seeds=args.seeds, out=args.out, progress=not args.quiet, mixing=mixing,
                          time_limit=args.time_limit if text else None, world=_world(args))
    except ValueError as e:  # a bad argument, task suite or executor: say it, no traceback
        return _fail("compare", [str(e)])
    print(table(results))
    print(f"\n{per_task_table(results)}")
    score = "expected real-execution score" if text else "success from held-out init states"
    print(f"\nheld-out: {score}; [a, b]: 95% interval over seeds; Δ: paired difference to real;"
          f" ratio: real's compute / the arm's (none where an arm ran no program); wall time {results['wall_s'] / 60:.1f} min")
    z = results.get("warm_zygotes") or {}
    if z.get("runs"):
        print(f"warm sandbox: {z['zygotes']} zygote(s), {z['startup_cpu_s']:.1f} CPU-s of start-up and "
              f"{z['zygote_cpu_s']:.1f} in all over {z['runs']} runs ({z['zygote_cpu_s'] / z['runs'] * 1e3:.0f} ms "
              "per run), charged to the runs' sandbox CPU")
    if args.out:
        print(f"wrote {args.out}/results.json and {args.out}/compare.png")
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
    from wmrl_agents.train import PreflightError, config_from_args, format_summary, train

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
