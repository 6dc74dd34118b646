"""Differential test: MLE-bench folders as wmrl grades them against mle-bench's own grade functions.

``data/mlebench_differential.json`` holds what mle-bench (783b15a) answered for every edge case of
``mlebench_cases.py`` on every competition there: ``ok`` with the score its ``Grader`` reports
(rounded to 5 places), ``invalid`` (no score) with the first line of the error, or ``nan`` (a NaN
score, which no medal or median compares with; wmrl refuses it). It was computed once, outside
this repository, by importing ``mlebench.grade_helpers.Grader`` from an mle-bench checkout with
the same pandas, scikit-learn and numpy as this one (the first 29 competitions in a throwaway
virtual environment; the 27 added later with ``PYTHONPATH`` on a checkout extracted to /tmp and
``py7zr``, which mle-bench imports only to unpack archives, stubbed; the 15 after those the same
way, with ``Levenshtein``, which three of them import, installed to a folder outside the
repository; for tgs-salt-identification-challenge only, with ``DataFrame.applymap``, which its
grade.py calls and pandas 3 removed, set to ``DataFrame.map``, as pandas 2 has it, and for
vinbigdata-chest-xray-abnormalities-detection only, with ``pycocotools`` installed beside
``Levenshtein`` and ``int()`` of its ``np.where(...)[0]`` allowed for one element, as numpy before
2.4 had it: without these mle-bench scores no submission of either; tensorflow2-question-answering
the same way as the 27, its answers read by mle-bench's own ``load_answers`` from the
``test.jsonl`` that ``mlebench_qa_cases.py`` writes); no mle-bench code is here.
This test grades the same files as the env does (``Task.grade``: wmrl's submission checks, then
the grader) and compares: verdicts must match, scores within 1e-9.

Disagreements left on purpose are listed in ``data/mlebench_differential_known.json`` with the why
(one: champs-scalar-coupling's perfect submission, scored -inf by mle-bench, refused by wmrl).
"""

from __future__ import annotations

import pytest

from . import mlebench_cases as C
from .differential import check_known, load, wmrl_verdicts

EXPECTED, KNOWN = load("mlebench_differential")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, dict]]:
    """wmrl's verdict on every case: ``{comp: {case: {"verdict", "score" | "reason"}}}``."""
    root = C.build(tmp_path_factory.mktemp("mlebench"), list(EXPECTED["competitions"]))
    cases = {name: C.cases(name) for name in EXPECTED["competitions"]}
    return wmrl_verdicts(root, tmp_path_factory.mktemp("work"), cases)


def test_every_competition_and_case_was_run_by_mlebench():
    assert set(EXPECTED["competitions"]) == set(C.COMPS)
    for name, cases in EXPECTED["competitions"].items():
        assert set(cases) == C.case_names(name), name


def test_wmrl_agrees_with_mlebench_except_the_known_differences(results):
    check_known(EXPECTED["competitions"], results, KNOWN, "mle-bench")


def test_scores_are_reported_as_mlebench_rounds_them(results):
    """mle-bench reports 5 decimal places; so does wmrl for an MLE-bench folder."""
    scores = [r["score"] for cases in results.values() for r in cases.values() if r["verdict"] == "ok"]
    assert scores and all(s == round(s, 5) for s in scores)


def test_a_submission_mlebench_cannot_score_is_never_scored(results):
    scored = [
        f"{name}/{case}"
        for name, cases in EXPECTED["competitions"].items()
        for case, want in cases.items()
        if want["verdict"] != "ok" and results[name][case]["verdict"] == "ok" and f"{name}/{case}" not in KNOWN
    ]
    assert not scored


def test_wmrl_tasks_says_mlebench_rules_grade_the_covered_competitions(tmp_path, capsys):
    from wmrl_envs.cli import main

    root = C.build(tmp_path / "suite", ["spaceship-titanic"])
    assert main(["tasks", "--suite", str(root)]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("spaceship-titanic"))
    assert "graded by mle-bench's rules (wmrl's copy of its grade.py), benchmark-exact" in line


def test_wmrl_tasks_says_what_a_rule_follows(tmp_path, capsys):
    """tgs-salt's rule follows mle-bench under pandas 2 (under pandas 3 its grade.py scores
    nothing); tensorflow2-question-answering, whose answers are JSON lines, is graded by the rules
    and its line says what pandas 3 does to an all-blank submission."""
    from wmrl_envs.cli import main

    root = C.build(tmp_path / "suite", ["tgs-salt-identification-challenge", "tensorflow2-question-answering"])
    assert main(["tasks", "--suite", str(root)]) == 0
    out = capsys.readouterr().out
    tgs = next(row for row in out.splitlines() if row.startswith("tgs-salt-identification-challenge"))
    assert "benchmark-exact (as mle-bench grades under pandas 2; under pandas 3 its grade.py scores nothing)" in tgs
    tf2 = next(row for row in out.splitlines() if row.startswith("tensorflow2-question-answering"))
    assert "mle-bench's rules (wmrl's copy of its grade.py), benchmark-exact (under pandas 3 an all-blank" in tf2
