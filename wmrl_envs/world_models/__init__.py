"""World models: predict an action's outcome instead of executing it.

For code: :class:`CodeCheckWorldModel` (the default; eight static checks, no LLM) and
:class:`LLMCheckWorldModel` (the same checks asked of an LLM through a backend from
:mod:`~wmrl_envs.world_models.backends`). :func:`make_world_model` builds either from a spec string.
Nothing here imports torch, transformers or vLLM until an LLM backend is built.
"""

from wmrl_envs.world_models.base import (
    FileSchema,
    Prediction,
    TaskContext,
    Verdict,
    WorldModel,
    predict_batch,
)
from wmrl_envs.world_models.checks import CHECKS
from wmrl_envs.world_models.factory import make_world_model
from wmrl_envs.world_models.llm import LLMCheckWorldModel
from wmrl_envs.world_models.static import CodeCheckWorldModel

__all__ = [
    "CHECKS",
    "CodeCheckWorldModel",
    "FileSchema",
    "LLMCheckWorldModel",
    "Prediction",
    "TaskContext",
    "Verdict",
    "WorldModel",
    "make_world_model",
    "predict_batch",
]
