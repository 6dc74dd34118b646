"""Only an explicit MLE-Dojo checkout counts: a stray importable ``mledojo`` changes nothing."""

from __future__ import annotations

import pytest

from wmrl_envs.mle.graders import RegistryScore, checkout_root
from wmrl_envs.mle.suites import load_suite

from . import real_layouts as R
from .stray import stray_package

COMP = "spaceship-titanic"


@pytest.fixture
def stray(tmp_path, monkeypatch):
    """The cwd holds an importable folder named ``mledojo`` (not a checkout), also on sys.path."""
    return stray_package(tmp_path, monkeypatch, "mledojo", "MLEDOJO_HOME")


def test_a_stray_mledojo_folder_is_no_checkout(stray):
    assert checkout_root(None) is None


def test_a_stray_mledojo_folder_leaves_mledojo_tasks_graded_by_the_registry(stray, tmp_path):
    data = R.build_mledojo(tmp_path / "prepared", comps=[COMP])
    suite = load_suite(str(data), root=tmp_path / "cache", progress=False)
    assert suite.problems == {}
    assert isinstance(suite.tasks[COMP].grader, RegistryScore)


def test_an_explicit_path_still_needs_the_checkout_layout(stray, monkeypatch):
    with pytest.raises(ValueError, match="not an MLE-Dojo checkout"):
        checkout_root(stray)
    monkeypatch.setenv("MLEDOJO_HOME", str(stray))
    with pytest.raises(ValueError, match="MLEDOJO_HOME"):
        checkout_root(None)


def test_an_explicit_checkout_is_used(tmp_path, monkeypatch):
    root = R.build_fake_mledojo_checkout(tmp_path / "MLE-Dojo")
    monkeypatch.delenv("MLEDOJO_HOME", raising=False)
    assert checkout_root(root) == root
    monkeypatch.setenv("MLEDOJO_HOME", str(root))
    assert checkout_root(None) == root
