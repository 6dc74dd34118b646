"""Deprecated: the outcome table and ``ReplayWrapper`` live in :mod:`wmrl_envs.replay`.

They are env-side machinery (a wrapper around a text env and the table it reads), so they moved to
the env package; this module re-exports them so old imports keep working, and importing it emits a
``DeprecationWarning``. It will be removed in a later release.
"""

import warnings

from wmrl_envs.replay import OutcomeStore, ReplayWrapper, action_key, default_store, task_key

__all__ = ["OutcomeStore", "ReplayWrapper", "action_key", "default_store", "task_key"]

warnings.warn("wmrl_agents.replay is deprecated: import OutcomeStore, ReplayWrapper, ... from wmrl_envs.replay",
              DeprecationWarning, stacklevel=2)
