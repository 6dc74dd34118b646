"""Fixtures for the sandbox tests: a task folder with hidden labels beside it, small limits."""

from __future__ import annotations

import uuid

import pytest
from procs import host_procs_with  # noqa: F401  (re-exported to the sandbox tests)

from wmrl_envs.sandbox import Limits, gvisor
from wmrl_envs.sandbox.bwrap import probe

SMALL = Limits(wall_s=6, cpu_s=2, memory_mb=512, max_procs=64, file_mb=64, workspace_mb=128)


BACKENDS = ("bwrap", "warm")  # every isolation test runs against both namespace backends


def bwrap_or_skip() -> None:
    reason = probe()
    if reason is not None:
        pytest.skip(reason)


def gvisor_or_skip() -> None:
    reason = gvisor.probe()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """The namespace backend under test: cold bwrap, or warm (bwrap plus the zygote)."""
    bwrap_or_skip()
    return request.param


@pytest.fixture
def token() -> str:
    """A unique marker: processes and files an attack leaves behind carry it."""
    return f"wmrl-attack-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def task(tmp_path, token):
    """``public/`` (the data the program may read) and ``private/labels.csv`` beside it."""
    public, private = tmp_path / "task" / "public", tmp_path / "task" / "private"
    public.mkdir(parents=True)
    private.mkdir()
    (public / "train.csv").write_text("x,y\n1,0\n2,1\n")
    labels = private / f"labels-{token}.csv"
    labels.write_text(f"id,y\n1,{token}\n")
    return public, labels
