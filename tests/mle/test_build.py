"""Building the offline suites: no labels in public files, sane sizes (ids: ``test_ids.py``)."""

from __future__ import annotations

import pandas as pd
import pytest

from wmrl_envs.mle import datasets
from wmrl_envs.mle.build import clean_source
from wmrl_envs.mle.spec import list_specs


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
        clean_source(spec)
