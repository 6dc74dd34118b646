"""Fixtures for the LIBERO tests: skip (saying how to install) only when the embodied stack is absent."""

from __future__ import annotations

import importlib.util

import pytest


def _missing() -> str | None:
    from wmrl_envs.embodied import suite

    for module in ("robosuite", "mujoco", "bddl"):
        if importlib.util.find_spec(module) is None:
            return f"module {module!r} missing: {suite.INSTALL_HINT}"
    try:
        suite.libero_root()
        suite.find_assets()
    except suite.LiberoNotInstalled as e:
        return str(e)
    return None


def pytest_collection_modifyitems(config, items):
    reason = _missing()
    if reason is None:
        return
    for item in items:
        if "libero" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"embodied stack not installed: {reason}"))


@pytest.fixture(scope="module")
def kitchen_env():
    """Task 3 (bowl into drawer, close it): the quickest libero_10 scene to build and step."""
    import gymnasium as gym

    import wmrl_envs  # noqa: F401

    env = gym.make("WMRL/LIBERO-Long-v0", task_id=3)
    yield env
    env.close()


@pytest.fixture
def one_torch_thread():
    """Small torch fits run many times slower with more torch threads than free cores (a busy CI box)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
