"""wmrl: World-Model RL environments, their sandbox and world models, and agent baselines.

Each subsystem registers its own subcommands; ``wmrl COMMAND --help`` describes one.

The env side's own subsystems are listed here; any other package (``wmrl_agents``, a user's
plugin) adds its commands through the ``wmrl.commands`` entry-point group, so ``wmrl_envs``
never imports the agents.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import entry_points

# Modules exposing ``register(subparsers)``; each added parser sets ``func(args) -> int``.
_COMMAND_MODULES = (
    "wmrl_envs.sandbox.cli",
    "wmrl_envs.mle.cli",
    "wmrl_envs.world_models.cli",
)
COMMAND_GROUP = "wmrl.commands"


def command_modules() -> list[str]:
    """The env side's command modules, then every ``wmrl.commands`` entry point's (sorted by name)."""
    plugins = sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name)
    return [*_COMMAND_MODULES, *(e.value for e in plugins if e.value not in _COMMAND_MODULES)]


def build_parser() -> argparse.ArgumentParser:
    about = __doc__.split("\n\n")[:2]  # what wmrl is and how to get help, not how commands are found
    parser = argparse.ArgumentParser(prog="wmrl", description="\n\n".join(about),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_modules():
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
