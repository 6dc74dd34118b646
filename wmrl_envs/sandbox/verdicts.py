"""Limit verdicts from what the kernel measured, never from what the program can say.

A program chooses its exit status and what it writes: ``sys.exit(152)`` is the status a death by
SIGXCPU reports (128 + 24), ``os.kill(os.getpid(), signal.SIGXFSZ)`` is a death by SIGXFSZ, and
"File too large" is a string. A verdict that a run hit a limit therefore needs the kernel's
evidence beside the signal: the CPU its cgroup (or the watcher's process tree) charged, and a file
in the run's writable area that reached ``RLIMIT_FSIZE``. Without the evidence the run is what it
looks like to the harness, a failed run, not a limit hit.
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from .base import MiB

if TYPE_CHECKING:
    from .base import Limits, RunResult
    from .workspace import RunDir

# The CPU a run shows when a CPU limit killed it: RLIMIT_CPU's soft limit is ceil(cpu_s) of the
# program's own CPU, and the run's cgroup (which also counts the start-up) is at least that; a
# process-tree watcher samples and can read less (tests/sandbox/test_attacks.py sees 0.9 of it).
CPU_EVIDENCE = 0.9


def cpu_limit_hit(result: RunResult, limits: Limits) -> bool:
    """Killed by a signal the CPU limit sends (SIGXCPU from RLIMIT_CPU, SIGKILL at its hard limit)
    with the CPU to show for it."""
    return result.term_signal in (signal.SIGXCPU, signal.SIGKILL) and (result.cpu_s or 0.0) >= CPU_EVIDENCE * limits.cpu_s


def fsize_limit_hit(result: RunResult, limits: Limits, rundir: RunDir) -> bool:
    """Stopped by RLIMIT_FSIZE (SIGXFSZ, or EFBIG's "File too large" where the program ignores the
    signal) with a file of the run that reached the limit."""
    said = result.term_signal == signal.SIGXFSZ or "File too large" in result.stderr
    return said and rundir.largest_file() >= limits.file_mb * MiB
