"""Checks that run before any training starts: each returns None when fine, else one line that
says what is wrong and how to fix it. None of them hangs: network checks have a short timeout.

    problems = preflight(model="~/models/qwen", world_model="openai:http://10.0.0.5:8000/v1")
    for p in problems: print(p, file=sys.stderr)
"""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

URL_TIMEOUT_S = 5.0
WEIGHT_FILES = ("*.safetensors", "*.safetensors.index.json", "pytorch_model*.bin", "*.gguf")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")


class PreflightError(ValueError):
    """Health checks failed before anything ran (``wmrl train``, ``wmrl compare``); ``problems``
    holds one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def check_model(path: str | os.PathLike) -> str | None:
    """Whether ``path`` is a local Hugging Face model folder (config, weights and tokenizer)."""
    folder = Path(path).expanduser()
    fix = "give the folder that model.save_pretrained(dir) and tokenizer.save_pretrained(dir) wrote " \
          "(nothing is downloaded)"
    if not folder.exists():
        return f"model path {str(path)!r} does not exist: {fix}"
    if not folder.is_dir():
        return f"model path {str(path)!r} is a file, not a model folder: {fix}"
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return f"model path {str(path)!r} has no readable config.json, so it is no Hugging Face model folder: {fix}"
    if not isinstance(config, dict) or "model_type" not in config:
        return f"{folder / 'config.json'} names no model_type: {fix}"
    if not any(next(folder.glob(pattern), None) for pattern in WEIGHT_FILES):
        return f"model path {str(path)!r} holds no weights (*.safetensors or pytorch_model*.bin): {fix}"
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        return f"model path {str(path)!r} holds no tokenizer (tokenizer.json or tokenizer_config.json): {fix}"
    return None


def check_url(url: str, timeout_s: float = URL_TIMEOUT_S) -> str | None:
    """Whether a server answers ``GET url`` within ``timeout_s``. An answer below HTTP 500 counts
    (a 401 still shows the server up), except 404: then the URL names nothing there."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url), timeout=timeout_s):
            return None
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return f"{url} answered HTTP 404 (nothing there): fix the URL (an OpenAI-compatible API root ends in /v1)"
        if e.code < 500:
            return None
        return f"{url} answered HTTP {e.code}: the server is up but failing; look at its log"
    except (OSError, ValueError, http.client.HTTPException) as e:  # refused, unreachable, timed out, not a URL
        why = getattr(e, "reason", None) or e
        return f"no answer from {url} within {timeout_s:g} s ({why}): start the server or fix the URL"


def check_world_model(spec: str | None, timeout_s: float = URL_TIMEOUT_S) -> str | None:
    """A world-model spec: known kind, an answering server (``openai:URL``), a model folder
    (``vllm:PATH``, ``hf:PATH``)."""
    if not spec:
        return None
    from wmrl_envs.world_models.factory import check_spec

    try:
        check_spec(spec)
    except ValueError as e:
        return str(e)
    kind, _, arg = spec.partition(":")
    if kind == "openai":
        base = arg.partition("#")[0].rstrip("/")
        return _named(f"world model {spec!r}", check_url(f"{base}/models", timeout_s))
    if kind in ("vllm", "hf"):
        return _named(f"world model {spec!r}", check_model(arg))
    return None


def check_trl() -> str | None:
    """Whether TRL (and the datasets package it trains from) can be imported."""
    missing = [name for name in ("trl", "datasets") if importlib.util.find_spec(name) is None]
    if missing:
        return (f"{' and '.join(missing)} not installed, needed by --trainer trl: pip install -e '.[llm]' "
                "(or --trainer wmrl)")
    return None


def check_vllm() -> str | None:
    """Whether vLLM can be imported."""
    if importlib.util.find_spec("vllm") is None:
        return "vllm is not installed, needed by --generation vllm: pip install -e '.[vllm]' on a CUDA machine"
    return None


def check_executor(name: str) -> str | None:
    """Whether sandbox backend ``name`` can run programs here (``auto``: warm, bwrap or docker can)."""
    from wmrl_envs.sandbox.factory import BACKENDS, available_backends, backend_status

    if name not in ("auto", *BACKENDS):
        return f"unknown executor {name!r}: choose one of auto, {', '.join(BACKENDS)}"
    if name == "ray":
        from wmrl_envs.sandbox.ray import probe

        return probe()
    if name == "local":
        return None
    if name != "auto":
        why = backend_status(name)
        return None if why is None else f"the {name} sandbox does not work here ({why}): fix it or pick another --executor"
    reasons = available_backends()
    if any(why is None for why in reasons.values()):
        return None
    detail = "; ".join(f"{k}: {v}" for k, v in reasons.items())
    return f"no isolating sandbox works here ({detail}): install bubblewrap or start a Docker engine"


def check_ray(address: str | None, timeout_s: float = URL_TIMEOUT_S) -> str | None:
    """Whether the Ray cluster at ``address`` (or ``$RAY_ADDRESS``) answers; no address: Ray
    starts a local instance, nothing to check. (The reason names the address.)"""
    address = address or os.environ.get("RAY_ADDRESS")
    if not address:
        return None
    from wmrl_envs.sandbox.ray import check_address

    return check_address(address, timeout_s)


def check_launcher(environ: Mapping[str, str] = os.environ) -> str | None:
    """Whether ``accelerate launch`` started the processes it was asked for: without ``--multi_gpu``
    its ``--num_processes N`` starts one process unless the machine has several GPUs (it then sets
    ``MASTER_ADDR`` for the one process, and no ``WORLD_SIZE``)."""
    if "ACCELERATE_MIXED_PRECISION" in environ and "MASTER_ADDR" in environ and "WORLD_SIZE" not in environ:
        return ("accelerate launch was asked for several processes (--num_processes) but started one: without "
                "several GPUs it needs --multi_gpu to start them (on CPUs too); add --multi_gpu or drop --num_processes")
    return None


def _named(what: str, why: str | None) -> str | None:
    return None if why is None else f"{what}: {why}"


def preflight(
    model: str | os.PathLike | None = None,
    world_model: str | None = None,
    trl: bool = False,
    executor: str | None = None,
    ray_address: str | None = None,
    vllm_server: str | None = None,
    timeout_s: float = URL_TIMEOUT_S,
) -> list[str]:
    """Every problem found, one line each (empty: go). ``trl``: TRL will train; ``vllm_server``:
    the base URL of ``trl vllm-serve`` (probed at ``/health``). Under ``accelerate launch``, also
    whether it started the processes asked for (:func:`check_launcher`)."""
    health_url = None if vllm_server is None else f"{vllm_server.rstrip('/')}/health"
    problems = [
        check_launcher(),
        None if model is None else check_model(model),
        check_world_model(world_model, timeout_s),
        check_trl() if trl else None,
        None if executor is None else check_executor(executor),
        check_ray(ray_address, timeout_s) if executor == "ray" else None,
        None if health_url is None else _named("vLLM server", check_url(health_url, timeout_s)),
    ]
    return [p for p in problems if p is not None]
