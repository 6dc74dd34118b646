"""Only an explicit mle-bench checkout counts: a stray importable ``mlebench`` changes nothing.

Mirrors ``test_checkout_rule.py`` (MLE-Dojo): ``mlebench=PATH`` or ``$MLEBENCH_HOME``, checked for
a checkout's layout; its grade functions are imported for that grader only.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from wmrl_envs.mle.external import load_external
from wmrl_envs.mle.grading import InvalidSubmission
from wmrl_envs.mle.mlebench_graders import MLEBenchCheckout, MLEBenchRules, checkout_root

from . import mlebench_cases as C
from .stray import stray_package

COMP = "spaceship-titanic"
OTHER = "tabular-playground-series-may-2022"


def _fake_checkout(root: Path) -> Path:
    """An mle-bench checkout whose grade functions are recognisable: ``COMP`` scores 0.123456789
    (reported as mle-bench rounds it), ``OTHER`` raises its own ``InvalidSubmissionError``."""
    pkg = root / "mlebench"
    (pkg / "competitions" / COMP).mkdir(parents=True)
    (pkg / "competitions" / OTHER).mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "competitions" / "__init__.py").write_text("")
    (pkg / "grade_helpers.py").write_text("class InvalidSubmissionError(Exception):\n    pass\n")
    (pkg / "competitions" / COMP / "grade.py").write_text("def grade(submission, answers):\n    return 0.123456789\n")
    (pkg / "competitions" / OTHER / "grade.py").write_text(
        textwrap.dedent(
            """\
            from mlebench.grade_helpers import InvalidSubmissionError

            def grade(submission, answers):
                raise InvalidSubmissionError("fixture checkout refuses every submission")
            """
        )
    )
    (pkg / "competitions" / OTHER / "config.yaml").write_text(
        f"grader:\n  grade_fn: mlebench.competitions.{OTHER}.grade:grade\n"
    )
    return root


@pytest.fixture
def stray(tmp_path, monkeypatch):
    """The cwd holds an importable folder named ``mlebench`` (not a checkout), also on sys.path."""
    return stray_package(tmp_path, monkeypatch, "mlebench", "MLEBENCH_HOME")


def test_a_stray_mlebench_folder_is_no_checkout(stray):
    assert checkout_root(None) is None


def test_a_stray_mlebench_folder_leaves_mlebench_folders_graded_by_the_rules(stray, tmp_path):
    root = C.build(tmp_path / "data", [COMP])
    tasks, problems = load_external(root, tmp_path / "work")
    assert problems == {}
    assert isinstance(tasks[COMP].grader, MLEBenchRules)


def test_an_explicit_path_still_needs_the_checkout_layout(stray, monkeypatch):
    with pytest.raises(ValueError, match="not an mle-bench checkout"):
        checkout_root(stray)
    monkeypatch.setenv("MLEBENCH_HOME", str(stray))
    with pytest.raises(ValueError, match="MLEBENCH_HOME"):
        checkout_root(None)


@pytest.mark.parametrize("how", ["kwarg", "env"])
def test_an_explicit_checkout_grades_with_its_own_functions(tmp_path, monkeypatch, how):
    checkout = _fake_checkout(tmp_path / "mle-bench")
    monkeypatch.delenv("MLEBENCH_HOME", raising=False)
    if how == "env":
        monkeypatch.setenv("MLEBENCH_HOME", str(checkout))
    root = C.build(tmp_path / "data", [COMP, OTHER])
    tasks, problems = load_external(root, tmp_path / "work", mlebench=checkout if how == "kwarg" else None)
    assert problems == {}
    assert all(isinstance(t.grader, MLEBenchCheckout) for t in tasks.values())
    assert tasks[COMP].grade(C.cases(COMP)["noisy"]) == 0.12346
    with pytest.raises(InvalidSubmission, match="fixture checkout refuses every submission"):
        tasks[OTHER].grade(C.cases(OTHER)["perfect"])
    assert not any(m == "mlebench" or m.startswith("mlebench.") for m in sys.modules)


def test_a_checkout_that_cannot_be_imported_is_a_problem_naming_the_fix(tmp_path):
    checkout = _fake_checkout(tmp_path / "mle-bench")
    (checkout / "mlebench" / "competitions" / COMP / "grade.py").write_text("import not_installed_pkg\n")
    root = C.build(tmp_path / "data", [COMP])
    tasks, problems = load_external(root, tmp_path / "work", mlebench=checkout)
    assert COMP not in tasks
    assert "not_installed_pkg" in problems[COMP] and "pip install" in problems[COMP]


def test_wmrl_tasks_names_the_checkout_and_the_registry_standing_in(tmp_path, capsys, monkeypatch):
    """``--mlebench`` switches the grader; a competition without rules says the registry stands in."""
    from wmrl_envs.cli import main

    monkeypatch.delenv("MLEBENCH_HOME", raising=False)
    checkout = _fake_checkout(tmp_path / "mle-bench")
    root = C.build(tmp_path / "data", [COMP])
    assert main(["tasks", "--suite", str(root), "--mlebench", str(checkout)]) == 0
    line = next(r for r in capsys.readouterr().out.splitlines() if r.startswith(COMP))
    assert "graded by mle-bench's checkout" in line

    other = "tabular-playground-series-jan-2021"  # no mle-bench rules in wmrl
    prepared = tmp_path / "data" / other / "prepared"
    (prepared / "public").mkdir(parents=True)
    (prepared / "private").mkdir()
    (prepared / "public" / "sample_submission.csv").write_text("id,target\n0,7.5\n1,7.5\n")
    (prepared / "private" / "answers.csv").write_text("id,target\n0,7.1\n1,8.2\n")
    assert main(["tasks", "--suite", str(root)]) == 0
    line = next(r for r in capsys.readouterr().out.splitlines() if r.startswith(other))
    assert "the registry standing in for mle-bench" in line and "an approximation" in line
