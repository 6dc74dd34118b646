"""wmrl: World-Model RL environments, their sandbox and world models, and agent baselines.

Each subsystem registers its own subcommands; ``wmrl COMMAND --help`` describes one.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules exposing ``register(subparsers)``; each added parser sets ``func(args) -> int``.
_COMMAND_MODULES = (
    "wmrl_envs.sandbox.cli",
    "wmrl_envs.mle.cli",
    "wmrl_envs.world_models.cli",
    "wmrl_agents.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wmrl", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:  # a real missing dependency inside the module
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
