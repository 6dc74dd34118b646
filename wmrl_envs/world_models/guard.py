"""Deprecated: use :mod:`wmrl_envs.world_models.screening`.

The input screening of world-model predictions (``safe_predict``, ``guarded``, ...) was called
``guard``, the name of the mixing's anti-hacking guard (:mod:`wmrl_envs.mixing.guard`), a different
thing. This module re-exports the screening's names so old imports keep working; importing it
emits a ``DeprecationWarning``. It will be removed in a later release.
"""

import warnings

from wmrl_envs.world_models.screening import (
    MAX_PROGRAM_CHARS,
    UNANALYSABLE,
    filled,
    guarded,
    safe_predict,
    safe_predict_batch,
    screen,
    unanalysable,
    zero,
)

__all__ = ["MAX_PROGRAM_CHARS", "UNANALYSABLE", "filled", "guarded", "safe_predict", "safe_predict_batch", "screen",
           "unanalysable", "zero"]

warnings.warn("wmrl_envs.world_models.guard is deprecated: import from wmrl_envs.world_models.screening",
              DeprecationWarning, stacklevel=2)
