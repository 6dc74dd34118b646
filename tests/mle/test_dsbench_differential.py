"""Differential test: DSBench folders as wmrl grades them against DSBench's own evaluation scripts.

``data/dsbench_differential.json`` holds what DSBench's ``evaluation/<name>_eval.py`` (ba78609),
run as DSBench runs it (``--answer_file --predict_file --path --name``, then ``result.txt``), gave
for every edge case of ``dsbench_cases.py`` on the DSBench tasks of ``real_layouts.py``: ``ok`` with
its score, ``invalid`` (the script failed) or ``nan``. It was computed once, outside this
repository; no DSBench code is here. wmrl grades the same files as the env does (``Task.grade``:
its submission checks, then the task's script, here ``real_layouts``' copies of those scripts'
behaviour, rows by position as DSBench compares them), so the test holds wmrl's wrapper and those
copies to DSBench's verdicts and scores (relative 1e-9). Disagreements still open are listed in
``data/dsbench_differential_known.json``.

Every case runs the task's script in a subprocess (about a second each), so the test runs the
cases that reach wmrl's own checks of a submission's shape on two tasks (:data:`RUN`); the data
file holds DSBench's verdicts on all 7 tasks x 24 cases for a longer run.
"""

from __future__ import annotations

import pytest

from . import dsbench_cases as D
from . import mlebench_cases as C
from . import real_layouts as R
from .differential import check_known, load, wmrl_verdicts

EXPECTED, KNOWN = load("dsbench_differential")
RUN = {
    name: ("perfect", "repeated_column", "wide", "short_row")
    for name in ("titanic", "playground-series-s3e9")
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, dict]]:
    root = R.build_dsbench(tmp_path_factory.mktemp("dsbench"), list(RUN))
    cases = {name: {c: data for c, data in D.cases(name).items() if c in RUN[name]} for name in RUN}
    return wmrl_verdicts(root, tmp_path_factory.mktemp("work"), cases)


def test_every_task_and_case_was_run_by_dsbench():
    assert set(EXPECTED["tasks"]) == set(R.DSBENCH_TASKS)
    for name, cases in EXPECTED["tasks"].items():
        assert set(cases) == set(C.CASES), name


def test_wmrl_agrees_with_dsbench_except_the_known_differences(results):
    expected = {name: {c: EXPECTED["tasks"][name][c] for c in cases} for name, cases in RUN.items()}
    check_known(expected, results, KNOWN, "DSBench")
