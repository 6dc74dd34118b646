"""Building a world model from a short spec string (CLI, configs)."""

from __future__ import annotations

from wmrl_envs.world_models.base import WorldModel

SPECS = "static | learned | proxy | openai:URL[#MODEL] | vllm:PATH | hf:PATH"


def check_spec(spec: str) -> str:
    """``spec`` if it names a world model (without building it), else a ``ValueError``."""
    kind, _, arg = spec.partition(":")
    if (kind in ("static", "learned", "proxy") and not arg) or (kind in ("openai", "vllm", "hf") and arg):
        return spec
    raise ValueError(f"unknown world model {spec!r}; use one of: {SPECS}")


def make_world_model(spec: str = "static") -> WorldModel:
    """``static`` (the default, no LLM), ``learned`` (the static verdicts mapped to the real reward
    by a model fitted on anchor pairs), ``proxy`` (the program run on a small split of the public
    train file, in the sandbox), ``openai:URL[#MODEL]`` (an OpenAI-compatible server such
    as ``vllm serve``), ``vllm:PATH`` (vLLM's offline engine) or ``hf:PATH`` (transformers,
    log-prob verdicts)."""
    kind, _, arg = spec.partition(":")
    if kind == "static" and not arg:
        from wmrl_envs.world_models.static import CodeCheckWorldModel

        return CodeCheckWorldModel()
    if kind == "learned" and not arg:
        from wmrl_envs.world_models.learned import LearnedWorldModel

        return LearnedWorldModel()
    if kind == "proxy" and not arg:
        from wmrl_envs.world_models.proxy import ProxyRunWorldModel

        return ProxyRunWorldModel()
    if kind in ("openai", "vllm", "hf") and arg:
        from wmrl_envs.world_models import backends
        from wmrl_envs.world_models.llm import LLMCheckWorldModel

        if kind == "openai":
            url, _, model = arg.partition("#")
            return LLMCheckWorldModel(backends.OpenAIBackend(url, model=model or None))
        if kind == "vllm":
            return LLMCheckWorldModel(backends.VLLMBackend(arg))
        return LLMCheckWorldModel(backends.TransformersBackend(arg))
    raise ValueError(f"unknown world model {spec!r}; use one of: {SPECS}")
