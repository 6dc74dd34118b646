"""The Ray backend on a local Ray instance: jobs run as tasks, results and files come back.

Starting Ray takes several seconds on two cores, so this module is marked slow; it needs
the ``ray`` extra (``pip install 'wmrl[ray]'``), which CI's dev install leaves out.
"""

from __future__ import annotations

import json

import pytest

from wmrl_envs.sandbox import Job, Limits, make_executor

from . import attacks
from .conftest import SMALL, bwrap_or_skip, host_procs_with

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'wmrl[ray]')")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray_executor():
    bwrap_or_skip()
    ex = make_executor("ray", limits=SMALL, init_kwargs={"num_cpus": 2, "include_dashboard": False})
    yield ex
    ray.shutdown()


def test_ray_runs_sandboxed_jobs_and_returns_files(ray_executor, task, token):
    public, _ = task
    jobs = [
        Job(code=attacks.render(attacks.NETWORK, port=9), data_dir=public),
        Job(code=attacks.render(attacks.SKLEARN, token=token), data_dir=public, limits=Limits(wall_s=60, cpu_s=30, memory_mb=1024)),
        Job(code=attacks.render(attacks.HANG, token=token), limits=Limits(wall_s=3, memory_mb=512)),
    ]
    net, fit, hang = ray_executor.map(jobs)
    assert net.backend == "ray+bwrap" and net.isolation == "strong"
    assert json.loads(net.stdout)["interfaces"] == ["lo"]
    assert fit.ok and fit.stdout.split()[0] == token and len(fit.files["submission.csv"].splitlines()) == 101
    assert hang.timed_out and hang.leftover_procs == 0
    assert host_procs_with(token) == []
