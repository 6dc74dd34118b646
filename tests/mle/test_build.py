"""Building the offline suites: deterministic bytes, no labels in public files, sane sizes."""

from __future__ import annotations

import dataclasses
import filecmp

import pandas as pd
import pytest

from wmrl_envs.mle import datasets
from wmrl_envs.mle.build import build_task, prepare_frame
from wmrl_envs.mle.spec import list_specs


def _files(folder):
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


def test_suite_sizes_and_splits():
    offline = list_specs("offline")
    train, heldout = list_specs("offline", "train"), list_specs("offline", "heldout")
    dsbench = list_specs("dsbench")
    assert len(offline) >= 20 and len(train) >= 14 and len(heldout) >= 6
    assert len(train) + len(heldout) == len(offline)
    assert len(dsbench) >= 12
    assert {s.task_type for s in offline} == {"binary", "multiclass", "regression"}
    assert len({s.metric for s in offline}) >= 6
    sources = lambda specs: {(s.source["loader"], *s.source.get("args", ())) for s in specs}  # noqa: E731
    assert not sources(dsbench) & sources(offline), (
        "DSBench tasks must use datasets the MLE-Dojo suite does not"
    )
    for spec in offline + dsbench:
        assert spec.license and spec.max_rows <= 6500


@pytest.mark.parametrize("task_id", ["telco-churn", "penguins", "diamond-prices"])
def test_builds_are_byte_identical(tmp_path, task_id):
    spec = next(s for s in list_specs("offline") if s.id == task_id)
    a, b = build_task(spec, tmp_path / "a"), build_task(spec, tmp_path / "b")
    assert _files(a) == _files(b)
    for rel in _files(a):
        assert filecmp.cmp(a / rel, b / rel, shallow=False), rel


def test_another_seed_gives_another_split(tmp_path):
    spec = next(s for s in list_specs("offline") if s.id == "telco-churn")
    test_ids = [
        set(pd.read_csv(build_task(s, tmp_path / str(s.split_seed)) / "public" / "test.csv")["id"])
        for s in (spec, dataclasses.replace(spec, split_seed=7))
    ]
    assert test_ids[0] != test_ids[1]


def test_public_files_hold_no_labels(offline_tasks):
    for task in offline_tasks.values():
        train = pd.read_csv(task.public_dir / "train.csv", nrows=5)
        test = pd.read_csv(task.public_dir / "test.csv")
        answers = pd.read_csv(task.answers_path)
        assert task.target in train.columns and task.target not in test.columns
        assert sorted(test["id"]) == sorted(answers["id"])
        assert not (task.public_dir.parent / "private").is_relative_to(task.public_dir)
        assert len(pd.read_csv(task.public_dir / "train.csv")) <= 5000


def test_missing_data_package_names_the_extra(monkeypatch):
    def missing(module):
        raise ImportError(f"No module named {module!r}")

    monkeypatch.setattr(datasets.importlib, "import_module", missing)
    spec = next(s for s in list_specs("offline") if s.id == "penguins")
    with pytest.raises(datasets.SuiteDataMissing, match=r"pip install 'wmrl\[suite\]'"):
        prepare_frame(spec)
