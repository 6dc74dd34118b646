"""Fixtures for the ML-engineering suites: built tasks in a temporary cache and fake executors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from wmrl_envs.mle.suites import load_tasks
from wmrl_envs.sandbox import Executor, Job, RunResult

SubmissionFn = Callable[[Path], bytes | None]


def sample_copy(data_dir: Path) -> bytes:
    return (Path(data_dir) / "sample_submission.csv").read_bytes()


class FakeExecutor(Executor):
    """Deterministic stand-in for the sandbox: a program's "output" is computed in-process.

    ``programs`` maps exact source text to a function of the mounted data folder that returns
    the submission bytes (None: no file); any other program yields a copy of the sample
    submission. Only trusted test code runs here, never the program text itself.
    """

    name = "fake"
    isolation = "none"

    def __init__(self, programs: dict[str, SubmissionFn] | None = None) -> None:
        super().__init__(workers=1)
        self.programs = programs or {}
        self.jobs: list[Job] = []

    def run(self, job: Job) -> RunResult:
        self.jobs.append(job)
        data = self.programs.get(job.code, sample_copy)(Path(job.data_dir))
        files = {} if data is None else {"submission.csv": data}
        return RunResult(
            backend="fake", isolation="none", exit_code=0, wall_s=0.25, cpu_s=0.2, files=files
        )


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory) -> Path:
    """A private cache of built tasks shared by the session's tests."""
    return tmp_path_factory.mktemp("wmrl-cache")


@pytest.fixture(scope="session")
def offline_tasks(cache_root):
    return load_tasks("offline", "all", root=cache_root, progress=False)


@pytest.fixture(scope="session")
def dsbench_tasks(cache_root):
    return load_tasks("dsbench", "all", root=cache_root, progress=False)
