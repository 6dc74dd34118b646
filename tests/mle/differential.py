"""What the differential tests share: the committed verdicts, and when wmrl agrees with a benchmark.

A benchmark's verdict on a submission is ``ok`` with a score, ``invalid`` (no score), or ``nan``
(a NaN score, which no leaderboard compares with: wmrl refuses it). wmrl agrees when its verdict
matches and its score is within a relative 1e-9. Disagreements still open are listed with their
class in a ``*_known.json`` file; a test fails on a new one and on a listed one that now agrees.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

DATA = Path(__file__).parent / "data"


def load(stem: str) -> tuple[dict, dict[str, str]]:
    """``(expected verdicts, known disagreements)`` from ``data/<stem>.json`` and ``<stem>_known.json``."""
    return json.loads((DATA / f"{stem}.json").read_text()), json.loads((DATA / f"{stem}_known.json").read_text())


def agrees(want: dict, got: dict) -> bool:
    if want["verdict"] == "nan":
        return got["verdict"] == "invalid"
    if want["verdict"] != got["verdict"]:
        return False
    return want["verdict"] != "ok" or math.isclose(got["score"], want["score"], rel_tol=1e-9, abs_tol=1e-12)


def check_known(expected: dict[str, dict[str, dict]], results: dict[str, dict[str, dict]], known: dict, who: str) -> None:
    """Fail on a disagreement not in ``known`` and on a ``known`` one that now agrees."""

    def said(r: dict) -> str:
        return f"{r['verdict']} {r.get('score', r.get('reason', ''))}"[:160]

    differ = {
        f"{name}/{case}": f"{who} {said(want)}, wmrl {said(results[name][case])}"
        for name, cases in expected.items()
        for case, want in cases.items()
        if not agrees(want, results[name][case])
    }
    new = sorted(set(differ) - set(known))
    fixed = sorted(set(known) - set(differ))
    assert not new, f"{len(new)} new disagreement(s) with {who}: " + "; ".join(f"{k}: {differ[k]}" for k in new[:20])
    assert not fixed, f"{len(fixed)} listed disagreement(s) now agree; drop them from the list: {fixed[:20]}"


def wmrl_verdicts(root: Path, work: Path, cases: dict[str, dict[str, bytes]]) -> dict[str, dict[str, dict]]:
    """wmrl's verdict on every case, graded as the env grades (``Task.grade``) the tasks of the
    folder ``root``: ``{comp: {case: {"verdict", "score" | "reason"}}}``."""
    from wmrl_envs.mle.external import load_external
    from wmrl_envs.mle.grading import InvalidSubmission

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tasks, problems = load_external(root, work)
    out: dict[str, dict[str, dict]] = {}
    for name, by_case in cases.items():
        out[name] = {}
        for case, data in by_case.items():
            if name in problems:
                out[name][case] = {"verdict": "not loaded", "reason": problems[name]}
                continue
            try:
                out[name][case] = {"verdict": "ok", "score": tasks[name].grade(data)}
            except InvalidSubmission as e:
                out[name][case] = {"verdict": "invalid", "reason": str(e)}
    return out
