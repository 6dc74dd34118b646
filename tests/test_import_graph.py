"""The layering the architecture promises (the env side never imports the agents), and one version.

``wmrl_envs`` is usable without ``wmrl_agents`` (a user wraps their own simulator or trainer), so
no module of it may import the agents, not even lazily; the agents' CLI commands reach ``wmrl``
through the ``wmrl.commands`` entry point instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import wmrl_envs
from wmrl_envs import cli

AGENT_PACKAGES = ("wmrl_agents", "agents")


def _imported(tree: ast.AST) -> set[str]:
    """Every module an ``import``, ``from … import`` or ``importlib.import_module("…")`` names."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
        elif (isinstance(node, ast.Call)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")):
            out.update(a.value for a in node.args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str))
        elif isinstance(node, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in node.elts):
            # module names listed for a loop of import_module calls (the CLI's table)
            out.update(e.value for e in node.elts if isinstance(e.value, str) and e.value.split(".")[0] in AGENT_PACKAGES)
    return out


def test_no_env_module_imports_the_agents():
    root = Path(wmrl_envs.__file__).parent
    offenders = {
        str(path.relative_to(root.parent)): sorted(m for m in _imported(ast.parse(path.read_text()))
                                                   if m.split(".")[0] in AGENT_PACKAGES)
        for path in sorted(root.rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_agents_commands_come_through_the_entry_point():
    assert "wmrl_agents.cli" in cli.command_modules()
    commands = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"compare", "train", "sandbox", "predict"} <= set(commands)


def test_the_version_is_the_distributions():
    import tomllib

    pyproject = tomllib.loads((Path(wmrl_envs.__file__).parents[1] / "pyproject.toml").read_text())
    assert wmrl_envs.__version__ == pyproject["project"]["version"]
