"""Deprecated alias of :mod:`wmrl_agents` (renamed in 0.2; this alias goes in 0.3).

The top-level name ``agents`` is also the import name of OpenAI's ``openai-agents`` package, so the
agent baselines moved to ``wmrl_agents``. Until 0.3, ``import agents.trl`` (any submodule) still
works: it warns once and returns the very module object ``wmrl_agents.trl``, so classes and
isinstance checks are shared. Do not install this release next to ``openai-agents``: both ship
``agents/__init__.py``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

warnings.warn(
    "the package 'agents' is now 'wmrl_agents': replace 'agents.' with 'wmrl_agents.' in imports "
    "(the alias 'agents' is removed in wmrl 0.3)",
    DeprecationWarning,
    stacklevel=2,
)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``agents.X`` to the already-imported (or now imported) ``wmrl_agents.X``."""

    def find_spec(self, name, path, target=None):  # noqa: ARG002 - MetaPathFinder signature
        if name.startswith(__name__ + "."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("wmrl_agents" + spec.name[len(__name__):])

    def exec_module(self, module) -> None:
        """The module was executed under its real name."""


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
