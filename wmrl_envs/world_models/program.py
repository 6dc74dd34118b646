"""Deprecated import path: the analyzer lives in :mod:`wmrl_envs.world_models.analysis`."""

from wmrl_envs.world_models.analysis import *  # noqa: F403
from wmrl_envs.world_models.analysis import __all__  # noqa: F401
