"""Text the agent reads: the task page with the data schema, and the feedback on each run.

Everything a program controls (its stdout and stderr, and the submission values and header names
that error messages echo) passes through :func:`sanitize` before it reaches an observation, and
program output is fenced by lines holding a fresh random nonce, so it cannot pose as the env's own
status, score and reward lines.
"""

from __future__ import annotations

import functools
import platform
import re
import secrets
import unicodedata
from dataclasses import dataclass
from importlib import metadata

import pandas as pd

from wmrl_envs.mle.task import Task
from wmrl_envs.sandbox import Limits, RunResult

_HEAD_ROWS = 3
_HEAD_COLS = 12
_TAIL_CHARS = 1500

_NEWLINE = re.compile(r"\r\n?")
_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing
    r"|(?:\x1b[\]P^_X]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]"  # the other escapes (character sets, keypad modes, ...)
)
_NOT_PLAIN = re.compile(r"[^\t\n -~]")  # anything but tab, newline and printable ASCII
# Unicode categories dropped: controls, format (bidi, zero-width), surrogates, private, unassigned,
# line and paragraph separators.
_DROPPED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


_LIBRARIES = ("numpy", "pandas", "scipy", "scikit-learn")


@functools.cache
def runtime_versions() -> str:
    """The programs' Python and key library versions, e.g. ``Python 3.11.2 with numpy 2.4.6,
    pandas 3.1.1, ...``, read from this interpreter's installed packages: the local and bwrap
    sandboxes run programs with it, and the Docker image pins the same libraries
    (``sandbox/docker.py``; its Python is 3.11, its patch release may differ). Missing packages
    are left out."""
    found = []
    for name in _LIBRARIES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return f"Python {platform.python_version()}" + (f" with {', '.join(found)}" if found else "")


def _schema(task: Task) -> str:
    lines = []
    for name, f in task.files.items():
        cols = ", ".join(f"{c} ({t})" for c, t in f["columns"].items())
        lines.append(f"- data/{name}: {f['n_rows']} rows x {len(f['columns'])} columns: {cols}")
        missing = {c: v for c, v in f["nan_fraction"].items() if v > 0}
        if missing:
            lines.append(
                "  missing values: " + ", ".join(f"{c} {v:.1%}" for c, v in missing.items())
            )
    if task.train_file is not None:
        head = pd.read_csv(task.public_dir / task.train_file, nrows=_HEAD_ROWS, low_memory=False)
        if head.shape[1] > _HEAD_COLS:
            head = head.iloc[:, list(range(_HEAD_COLS - 1)) + [head.shape[1] - 1]]
        lines += [
            "",
            f"First rows of {task.train_file}{' (some columns omitted)' if len(head.columns) == _HEAD_COLS else ''}:",
            "```",
            head.to_csv(index=False).strip(),
            "```",
        ]
    return "\n".join(lines)


def task_text(task: Task, limits: Limits, max_turns: int) -> str:
    """The fixed part of every observation of ``task``."""
    metric = task.metric
    direction = "higher is better" if metric.higher_is_better else "lower is better"
    sample = task.sample_bytes.decode(errors="replace").splitlines()[:3]
    train, test = task.train_file or "the training data", task.test_file or "the test data"
    turns = (
        "You have one turn: your program runs once and its submission is scored on the hidden test set."
        if max_turns == 1
        else f"You have {max_turns} turns. On turns 1 to {max_turns - 1} your program runs on a validation "
        f"split carved from {train} (data/ then holds that split under the same file names) and you see its "
        f"validation score. On turn {max_turns} it runs on the full data and is scored on the hidden test set."
    )
    return "\n".join(
        [
            f"# Task {task.id}",
            "",
            task.description.strip(),
            "",
            "## Data schema (read-only, under ./data/)",
            _schema(task),
            "",
            "## Metric",
            f"{metric.name} ({metric.title}), {direction}.",
            "",
            "## Submission",
            f"Write ./submission.csv (in the working directory) with columns {','.join(task.submission_columns)} "
            f"and one row per row of data/{test}, for example:" if task.test_file else "and one row per test id, for example:",
            "```",
            *sample,
            "```",
            "",
            "## Limits",
            f"wall {limits.wall_s:g} s, CPU {limits.cpu_s:g} s, memory {limits.memory_mb} MB, "
            f"{limits.threads} thread(s), no network. {runtime_versions()}.",
            "",
            "## Turns",
            turns,
            "",
            "Answer with the complete Python program.",
        ]
    )


@dataclass
class Outcome:
    """What one step produced: a score, or the reason there is none."""

    status: str  # "ok" | "invalid_action" | "run_failed" | "invalid_submission" | "sandbox_error"
    phase: str  # "test" | "validation" | "check" (format check, score withheld)
    message: str = ""
    score: float | None = None  # the benchmark's score
    result: RunResult | None = None
    paid: float | None = None  # the score the reward is computed from (blanks.py); None: paid as a failure
    blanks: int = 0  # blank prediction cells


def sanitize(text: str | bytes, oneline: bool = False) -> str:
    """Program-controlled text made safe to show: UTF-8 decoded (invalid bytes become U+FFFD),
    line ends made ``\\n``, terminal escape sequences, control, bidi and invisible characters
    dropped; with ``oneline`` newlines and tabs become spaces."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = _ESCAPE.sub("", _NEWLINE.sub("\n", text))
    text = _NOT_PLAIN.sub(lambda m: "" if unicodedata.category(m[0]) in _DROPPED else m[0], text)
    return re.sub(r"[\n\t]", " ", text) if oneline else text


def _fenced(name: str, text: str, nonce: str) -> list[str]:
    """The tail of program output between lines that hold ``nonce``, which the program cannot know."""
    body = sanitize(text).strip("\n")
    if not body.strip():
        return []
    tail = body if len(body) <= _TAIL_CHARS else "..." + body[-_TAIL_CHARS:]
    end = f">>>{nonce} end of {name}"
    return [f"<<<{nonce} {name} of the program (its tail), up to the line {end!r}", tail, end]


def run_summary(r: RunResult, limits: Limits) -> str:
    """One line on how the sandboxed run ended."""
    cpu = f", {r.cpu_s:.1f} s CPU" if r.cpu_s is not None else ""
    mem = f", peak {r.peak_mem_bytes / 2**20:.0f} MB" if r.peak_mem_bytes else ""
    how = (
        f"exit code {r.exit_code}"
        if r.exit_code is not None
        else f"killed by signal {r.term_signal}"
    )
    problems = [
        (r.timed_out, f"wall-clock limit of {limits.wall_s:g} s exceeded"),
        (r.cpu_limit_hit, f"CPU limit of {limits.cpu_s:g} s exceeded"),
        (r.oom_killed, f"memory limit of {limits.memory_mb} MB exceeded"),
        (r.fsize_limit_hit, f"a file exceeded {limits.file_mb} MB"),
        (r.workspace_limit_hit, f"the workspace exceeded {limits.workspace_mb} MB"),
        (r.output_limit_hit, f"stdout and stderr exceeded {limits.output_mb} MB together"),
        (r.stdout_truncated or r.stderr_truncated, "output was truncated"),
    ]
    notes = "; ".join(text for hit, text in problems if hit)
    return f"Run: {how} after {r.wall_s:.1f} s{cpu}{mem} [{r.backend}, {r.isolation} isolation]" + (
        f"; {notes}" if notes else ""
    )


def _blank_line(outcome: Outcome) -> str:
    """What blank predictions did to the pay (``blanks.py``)."""
    head = f"Blank predictions: {outcome.blanks} cell(s) left blank"
    if outcome.score is None:
        return f"{head}; a blank is paid as the sample submission's value for its row."
    paid = "as a failure" if outcome.paid is None else f"on {outcome.paid:.6g}"
    return (
        f"{head}; the benchmark scores the file without them, the env pays {paid} "
        f"(no more than the sample's values in those rows: {sanitize(outcome.message, oneline=True)})."
    )


def feedback_text(
    outcome: Outcome, task: Task, limits: Limits, turn: int, max_turns: int, extra: list[str]
) -> str:
    """The feedback block on one step."""
    metric = task.metric
    where = {
        "test": "scored on the hidden test set",
        "validation": "scored on a validation split held out from train.csv (the test score comes at the last turn)",
        "check": "format checked only (no validation split here; the test score comes at the last turn)",
    }[outcome.phase]
    lines = [f"Turn {turn} of {max_turns}: {where}."]
    r = outcome.result
    if r is not None:
        nonce = secrets.token_hex(16)
        lines += [run_summary(r, limits), *_fenced("stdout", r.stdout, nonce)]
        lines += _fenced("stderr", r.stderr, nonce)
    if outcome.status == "ok":
        if outcome.score is None:
            lines.append("Submission: valid.")
        else:
            label = "Validation score" if outcome.phase == "validation" else "Test score"
            lines.append(
                f"{label} ({metric.name}, {'higher' if metric.higher_is_better else 'lower'} is better): {outcome.score:.6g}"
            )
        if outcome.blanks:
            lines.append(_blank_line(outcome))
    else:
        message = sanitize(outcome.message, oneline=True)
        lines.append(f"Error ({outcome.status.replace('_', ' ')}): {message}")
    return "\n".join(lines + extra)
