"""``make_executor``: pick and build a backend by name, or the strongest one that works here."""

from __future__ import annotations

import importlib
import logging

from .base import Executor, Limits

log = logging.getLogger(__name__)

# name -> (module, class); modules are imported on demand so optional SDKs stay optional.
BACKENDS = {
    "warm": ("wmrl_envs.sandbox.warm", "WarmExecutor"),
    "bwrap": ("wmrl_envs.sandbox.bwrap", "BwrapExecutor"),
    "gvisor": ("wmrl_envs.sandbox.gvisor", "GvisorExecutor"),
    "docker": ("wmrl_envs.sandbox.docker", "DockerExecutor"),
    "ray": ("wmrl_envs.sandbox.ray", "RayExecutor"),
    "local": ("wmrl_envs.sandbox.local", "LocalExecutor"),
}
_AUTO_ORDER = ("warm", "bwrap", "docker")


def _backend(name: str):
    module, cls = BACKENDS[name]
    return getattr(importlib.import_module(module), cls)


def backend_status(name: str) -> str | None:
    """None if backend ``name`` works here, else why not."""
    return _backend(name).probe()


def available_backends() -> dict[str, str | None]:
    """The status of each backend ``auto`` may pick: None if it works, else why not."""
    return {name: backend_status(name) for name in _AUTO_ORDER}


def make_executor(
    name: str = "auto",
    limits: Limits | None = None,
    workers: int | None = None,
    allow_unsafe: bool = False,
    **options,
) -> Executor:
    """Build a sandbox executor.

    Args:
        name: ``"auto"`` (the fastest isolating backend that works here: warm, bwrap, then
            docker), ``"warm"``, ``"bwrap"``, ``"gvisor"`` (a kernel of its own per run, opt-in),
            ``"docker"``, ``"ray"`` or ``"local"`` (no isolation).
        limits: default limits for jobs that carry none.
        workers: sandboxes ``map`` runs at once (default: CPU count).
        allow_unsafe: permit the ``local`` backend, explicitly or as auto's last resort.
        **options: passed to the backend class (e.g. ``hide=``, ``image=``, ``python=``).
    """
    if name == "auto":
        reasons = available_backends()
        for candidate in _AUTO_ORDER:
            if reasons[candidate] is None:
                log.info("sandbox: auto picked %s", candidate)
                return _backend(candidate)(limits, workers, **options)
        detail = "; ".join(f"{k}: {v}" for k, v in reasons.items())
        if not allow_unsafe:
            raise RuntimeError(
                f"no isolating sandbox works here ({detail}). Install bubblewrap, or start a "
                "Docker engine, or pass allow_unsafe=True to run programs without isolation."
            )
        log.warning("sandbox: no isolating backend (%s); using local WITHOUT isolation", detail)
        name = "local"
    if name not in BACKENDS:
        raise ValueError(f"unknown executor {name!r}: choose one of auto, {', '.join(BACKENDS)}")
    if name == "local" and not allow_unsafe:
        raise ValueError(
            "the local executor does not isolate the program (it can read labels and reach the "
            "network); pass allow_unsafe=True if that is what you want"
        )
    return _backend(name)(limits, workers, **options)
