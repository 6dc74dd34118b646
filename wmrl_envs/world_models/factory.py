"""Building a world model from a short spec string (CLI, configs).

``KIND`` or ``KIND:SETTINGS``: ``proxy:rows=500,board=task`` sets the proxy's keyword arguments
(``rows``, ``board``, ``held_fraction``, ``seed``, ``memo``, ``time_share``, ``min_growth``), the LLM kinds take a path or URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wmrl_envs.settings import parse_settings
from wmrl_envs.world_models.base import WorldModel

if TYPE_CHECKING:
    from wmrl_envs.replay import OutcomeStore

SPECS = ("static | learned | proxy[:rows=N,board=proxy|task|none,held_fraction=F,seed=S,memo=on|off,time_share=F,"
         "min_growth=K] | openai:URL[#MODEL] | vllm:PATH | hf:PATH")
_PROXY_SETTINGS: dict[str, type] = {"rows": int, "board": str, "held_fraction": float, "seed": int, "memo": str,
                                    "time_share": float, "min_growth": float}


def proxy_settings(spec: str, text: str) -> dict[str, Any]:
    """``k=v,...`` of a proxy spec as keyword arguments, or a one-line ``ValueError``."""
    out = parse_settings(text, _PROXY_SETTINGS, f"world model {spec!r}", "the proxy", "proxy:rows=500,board=task")
    if out.get("memo", "on") not in ("on", "off"):
        raise ValueError(f"memo={out['memo']!r} in world model {spec!r}: use memo=on or memo=off")
    return out


def check_spec(spec: str) -> str:
    """``spec`` if it names a world model with valid settings (nothing is run), else a ``ValueError``."""
    kind, _, arg = spec.partition(":")
    if kind == "proxy":
        make_world_model(spec)  # builds no executor: only checks the settings
        return spec
    if (kind in ("static", "learned") and not arg) or (kind in ("openai", "vllm", "hf") and arg):
        return spec
    raise ValueError(f"unknown world model {spec!r}; use one of: {SPECS}")


def make_world_model(spec: str = "static", executor: str | None = None, record: OutcomeStore | None = None) -> WorldModel:
    """``static`` (the default, no LLM), ``learned`` (the static verdicts mapped to the real reward
    by a model fitted on anchor pairs), ``proxy[:SETTINGS]`` (the program run on a small split of
    the public train file, in the sandbox, behind a memo of the programs it already predicted;
    ``memo=off`` runs every copy), ``openai:URL[#MODEL]`` (an OpenAI-compatible server such as
    ``vllm serve``), ``vllm:PATH`` (vLLM's offline engine) or ``hf:PATH`` (transformers, log-prob
    verdicts). ``executor``: the sandbox backend a proxy runs on (default ``auto``); pass the env's.
    ``record``: a table the static model's predictions are recorded in and served from, each at its
    recorded cost (:mod:`wmrl_envs.world_models.recorded`: a seed's compute then never follows the
    machine's load); the other kinds are not facts of the program and ignore it."""
    kind, _, arg = spec.partition(":")
    if kind == "static" and not arg:
        from wmrl_envs.world_models.recorded import RecordedWorldModel, source_hash
        from wmrl_envs.world_models.static import CodeCheckWorldModel

        static = CodeCheckWorldModel()
        return static if record is None else RecordedWorldModel(static, record, f"static@{source_hash('wmrl_envs')}")
    if kind == "learned" and not arg:
        from wmrl_envs.world_models.learned import LearnedWorldModel

        return LearnedWorldModel()
    if kind == "proxy":
        from wmrl_envs.world_models.memo import MemoWorldModel
        from wmrl_envs.world_models.proxy import ProxyRunWorldModel

        settings = proxy_settings(spec, arg)
        memo = settings.pop("memo", "on") == "on"
        try:
            proxy = ProxyRunWorldModel(executor or "auto", **settings)
        except ValueError as e:
            raise ValueError(f"world model {spec!r}: {e}") from None
        return MemoWorldModel(proxy) if memo else proxy
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
