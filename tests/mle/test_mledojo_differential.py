"""Differential test: wmrl's registry against MLE-Dojo's own metric classes, submission by submission.

``data/mledojo_differential.json`` holds what MLE-Dojo (667a8fd) answered for every edge case of
``dojo_cases.py`` on every gradable competition of the registry: its verdict, and its score or
the last line of its error (a NaN score counts as no score). It was computed once, outside this
repository, by MLE-Dojo's code; no MLE-Dojo code is here. This test grades the same files the
way the env does (``Task.grade``: wmrl's submission checks, then the registry) and compares:
verdicts must match, scores within a relative 1e-9.

The disagreements that remain are listed in ``data/mledojo_differential_known.json`` with their
class; the test fails on any new one and on any listed one that now agrees (shrink the list).
"""

from __future__ import annotations

import pytest

from . import dojo_cases as D
from .differential import check_known, load, wmrl_verdicts

EXPECTED, KNOWN = load("mledojo_differential")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, dict]]:
    """wmrl's verdict on every case: ``{comp: {case: {"verdict", "score" | "reason"}}}``."""
    entries = {n: e for n, e in D.gradable().items() if n in EXPECTED["competitions"]}
    root = D.build(tmp_path_factory.mktemp("dojo"), entries)
    cases = {name: D.cases(entry) for name, entry in entries.items()}
    return wmrl_verdicts(root, tmp_path_factory.mktemp("work"), cases)


def test_every_gradable_competition_and_case_was_run_by_mledojo():
    gradable = set(D.gradable())
    assert set(EXPECTED["competitions"]) | set(EXPECTED["not_run"]) == gradable
    for name, cases in EXPECTED["competitions"].items():
        assert set(cases) == set(D.cases(D.gradable()[name])), name


def test_registry_agrees_with_mledojo_except_the_known_differences(results):
    check_known(EXPECTED["competitions"], results, KNOWN, "MLE-Dojo")


def test_a_refused_submission_is_never_scored(results):
    """Where MLE-Dojo refuses, wmrl refuses too (outside the listed differences)."""
    scored = [
        f"{name}/{case}"
        for name, cases in EXPECTED["competitions"].items()
        for case, want in cases.items()
        if want["verdict"] == "invalid" and results[name][case]["verdict"] == "ok"
        and f"{name}/{case}" not in KNOWN
    ]
    assert not scored


def _registry_caused(reason: str) -> bool:
    """A listed disagreement the registry answers for (not MLE-Dojo's code failing where the
    verdicts were computed, not the synthetic data)."""
    return not ("own code fails" in reason or "synthetic" in reason)


def test_approximate_marks_exactly_the_competitions_with_listed_disagreements():
    listed = {key.split("/")[0] for key, why in KNOWN.items() if _registry_caused(why)}
    marked = {name for name, entry in D.gradable().items() if entry.approximate}
    assert marked == listed


def test_wmrl_tasks_says_which_grader_applies(tmp_path, capsys):
    from wmrl_envs.cli import main

    entries = {n: D.gradable()[n] for n in ("walmart-recruiting-store-sales-forecasting", "aerial-cactus-identification")}
    root = D.build(tmp_path / "suite", entries)
    assert main(["tasks", "--suite", str(root)]) == 0
    out = capsys.readouterr().out
    lines = {name: next(line for line in out.splitlines() if line.startswith(name)) for name in entries}
    assert ("graded by the registry, an approximation (MLE-Dojo bug not copied)"
            in lines["walmart-recruiting-store-sales-forecasting"])
    assert "graded by the registry, benchmark-exact" in lines["aerial-cactus-identification"]
