"""What every backend runs: the command line, the environment, and the interpreter it needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .base import Job, Limits

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "BLIS_NUM_THREADS",
)


def command(job: Job, python: str, program_path: str) -> list[str]:
    """``python program_path`` for source jobs, the job's own argv otherwise."""
    return list(job.argv) if job.argv is not None else [python, program_path]


def environment(limits: Limits, *, path: str, tmp: str) -> dict[str, str]:
    """The whole environment of the program: nothing is inherited from the harness."""
    env = {
        "PATH": path,
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "MPLBACKEND": "Agg",
        # pyarrow (under pandas 3) starts a jemalloc thread at import: none, so that a process
        # that imported pandas can be forked safely (the warm backend's zygote).
        "JE_ARROW_MALLOC_CONF": "background_thread:false",
    }
    env.update({v: str(limits.threads) for v in THREAD_VARS})
    return env


def trial_run(argv: list[str], tool: str, what: str, timeout: float) -> str | None:
    """A backend's probe: None if ``argv`` exits 0, else why ``tool`` cannot ``what`` here."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{tool} failed to run: {e}"
    if p.returncode != 0:
        return f"{tool} cannot {what} here: {p.stderr.strip()[-300:]}"
    return None


def search_path(python: str) -> str:
    """PATH for the program: the interpreter's bin directory first."""
    return f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin"


def interpreter_roots(python: str | None = None) -> list[Path]:
    """Directories the interpreter and its venv live in, outermost only, outside ``/usr``.

    Derived at run time (``sys.prefix``, ``sys.base_prefix`` and the interpreter's real path),
    so a fresh clone with its own venv works without configuration.
    """
    python = python or sys.executable
    real = Path(os.path.realpath(python))
    candidates = {
        Path(p).resolve()
        for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    candidates.add(real.parent.parent)  # <prefix>/bin/python -> <prefix>
    candidates.add(Path(python).parent.parent.resolve())
    roots: list[Path] = []
    for c in sorted(candidates, key=lambda p: len(p.parts)):
        if c == Path("/") or c.is_relative_to("/usr"):
            continue
        if not any(c.is_relative_to(r) for r in roots):
            roots.append(c)
    return roots
