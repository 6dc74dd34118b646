"""Public ids and row order of the embedded tasks say nothing about the source order or the label.

Sources are often sorted by the label, so any public handle on a row's source position is a label
leak. For every task of both suites, on its test split and on the validation split carved from its
train.csv, three attacks predict each hidden target from the public files alone (what a sandboxed
program sees, plus the public ``split_seed`` of the task's config):

- ``by_id``: the target of the train row with the nearest id;
- ``by_position``: the target of the train row at the same relative row position;
- ``inverted``: the attack on builds before format 2, whose ids were ``default_rng(split_seed)
  .permutation(n) + 1`` of the source order: invert that permutation to get each row's source
  position, then take the train row nearest in source position.

Score: accuracy for classification, mean absolute error for regression. Noise: the attack's own
null distribution, its neighbour map kept and the train targets shuffled (``DRAWS`` times); a
check fails when the attack beats the null mean by more than ``Z`` null standard deviations. Under
the null each neighbour's target is a random train target, whose expected accuracy is at most the
majority class's and whose expected MAE is at least the best constant's, so passing also means "no
better than the majority class / the mean". Over 20 fresh builds (4440 checks) z was standard
normal (sd 1.00, max 3.5), so ``Z = 5`` makes a false alarm among the 222 checks of a run a
~1e-4 event; builds of format 1 fail on 12 tasks with z from 5.6 to 117.
"""

from __future__ import annotations

import dataclasses
import filecmp
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wmrl_envs.mle.build import (
    SECRET_FILE,
    build_task,
    carve_dev,
    clean_source,
    public_order,
    split_task,
    task_dir,
)
from wmrl_envs.mle.population import load_data
from wmrl_envs.mle.spec import TaskSpec, list_specs
from wmrl_envs.mle.suites import spec_task
from wmrl_envs.mle.task import Task

DRAWS = 400
Z = 5.0
SPECS = {(suite, s.id): s for suite in ("offline", "dsbench") for s in list_specs(suite)}


@dataclasses.dataclass
class Split:
    """A split as a sandboxed program sees it, plus the hidden targets in test.csv's row order."""

    train: pd.DataFrame
    test: pd.DataFrame
    y_train: np.ndarray
    y_test: np.ndarray
    classification: bool


def _targets(task: Task, answers_path: Path, ids: pd.Series) -> pd.Series:
    answers = pd.read_csv(answers_path).set_index(task.id_column).loc[ids]
    if task.target in answers.columns:
        return answers[task.target]
    return answers.idxmax(axis=1)  # one-hot class columns


def read_split(task: Task, folder: Path, answers_path: Path) -> Split:
    train = pd.read_csv(folder / "train.csv", low_memory=False)
    test = pd.read_csv(folder / "test.csv", low_memory=False)
    y_train, y_test = train[task.target], _targets(task, answers_path, test[task.id_column])
    if task.task_type == "regression":
        return Split(train, test, y_train.to_numpy(float), y_test.to_numpy(float), False)
    codes, _ = pd.factorize(pd.concat([y_train, y_test]).astype(str))
    return Split(train, test, codes[: len(train)], codes[len(train) :], True)


def nearest(train_keys: np.ndarray, test_keys: np.ndarray) -> np.ndarray:
    """Index of the train row whose key is nearest each test key."""
    order = np.argsort(train_keys, kind="stable")
    keys = train_keys[order]
    right = np.clip(np.searchsorted(keys, test_keys), 1, len(keys) - 1)
    left = right - 1
    pick = np.where(test_keys - keys[left] <= keys[right] - test_keys, left, right)
    return order[pick]


def by_id(s: Split, spec: TaskSpec) -> np.ndarray:
    return nearest(s.train[spec.id_column].to_numpy(), s.test[spec.id_column].to_numpy())


def by_position(s: Split, spec: TaskSpec) -> np.ndarray:
    relative = (np.arange(len(s.test)) + 0.5) / len(s.test)
    return (relative * len(s.train)).astype(np.int64)


def inverted(s: Split, spec: TaskSpec, n: int) -> np.ndarray:
    """Nearest in the source position that ids of format-1 builds gave away."""
    n_source = len(clean_source(spec)) if n == spec.max_rows else n
    _, order = public_order(spec, n_source)
    position = lambda df: order[df[spec.id_column].to_numpy() - 1]  # noqa: E731
    return nearest(position(s.train), position(s.test))


def score(s: Split, predictions: np.ndarray) -> np.ndarray:
    """Accuracy, or minus the mean absolute error: larger is better (last axis: test rows)."""
    if s.classification:
        return (predictions == s.y_test).mean(axis=-1)
    return -np.abs(predictions - s.y_test).mean(axis=-1)


def baseline(s: Split) -> float:
    """The majority class's accuracy, or minus the train mean's mean absolute error."""
    if s.classification:
        return float(np.mean(s.y_test == np.bincount(s.y_train).argmax()))
    return float(score(s, np.full(len(s.y_test), s.y_train.mean())))


def check(s: Split, neighbours: np.ndarray, seed: int) -> tuple[float, float, float]:
    """``(observed, null mean, null sd)`` of the score of ``y_train[neighbours]``."""
    rng = np.random.default_rng(seed)
    shuffles = rng.permuted(np.tile(np.arange(len(s.y_train)), (DRAWS, 1)), axis=1)
    null = score(s, s.y_train[shuffles[:, neighbours]])
    return float(score(s, s.y_train[neighbours])), float(null.mean()), float(null.std(ddof=1))


def attacks(spec: TaskSpec, n: int) -> dict[str, Callable[[Split, TaskSpec], np.ndarray]]:
    return {
        "by_id": by_id,
        "by_position": by_position,
        "inverted": lambda s, sp: inverted(s, sp, n),
    }


def task_splits(task: Task) -> dict[str, Split]:
    """The task's test split and its validation split, carved as the env carves it."""
    dev = carve_dev(task, task.work_dir / "dev", task.valid_fraction, task.split_seed)
    return {
        "test": read_split(task, task.public_dir, task.answers_path),
        "dev": read_split(task, dev / "public", dev / "private" / "test_answer.csv"),
    }


def leaks(spec: TaskSpec, task: Task) -> list[str]:
    """One line per attack that beats its null by more than ``Z`` standard deviations."""
    splits = task_splits(task)
    n = len(splits["test"].train) + len(splits["test"].test)
    found = []
    for split_name, s in splits.items():
        for k, (name, attack) in enumerate(attacks(spec, n).items()):
            observed, mean, sd = check(s, attack(s, spec), seed=k)
            z = (observed - mean) / sd
            if z > Z:
                found.append(
                    f"{spec.id}/{split_name} {name}: {abs(observed):.4g} vs baseline "
                    f"{abs(baseline(s)):.4g}, null {abs(mean):.4g} ± {sd:.2g} (z = {z:.1f})"
                )
    return found


@pytest.fixture(scope="module")
def tasks(offline_tasks, dsbench_tasks) -> dict[tuple[str, str], Task]:
    return {
        **{("offline", i): t for i, t in offline_tasks.items()},
        **{("dsbench", i): t for i, t in dsbench_tasks.items()},
    }


@pytest.mark.parametrize("key", list(SPECS), ids=[f"{a}/{b}" for a, b in SPECS])
def test_public_order_predicts_nothing(tasks, key):
    found = leaks(SPECS[key], tasks[key])
    assert not found, "public ids or row order predict the hidden targets:\n" + "\n".join(found)


def _spec(task_id: str) -> TaskSpec:
    return SPECS[("offline", task_id)]


def _files(folder: Path) -> list[Path]:
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("task_id", ["telco-churn", "penguins", "diamond-prices"])
def test_same_secret_gives_identical_bytes(tmp_path, task_id):
    spec, secret = _spec(task_id), bytes(range(32))
    a, b = build_task(spec, tmp_path / "a", secret), build_task(spec, tmp_path / "b", secret)
    assert _files(a) == _files(b)
    for rel in _files(a):
        assert filecmp.cmp(a / rel, b / rel, shallow=False), rel
    assert (a / "private" / SECRET_FILE).read_text().strip() == secret.hex()


def test_each_build_draws_a_new_secret_and_keeps_the_split(tmp_path):
    spec = _spec("penguins")
    a, b = build_task(spec, tmp_path / "a"), build_task(spec, tmp_path / "b")
    assert (a / "private" / SECRET_FILE).read_text() != (b / "private" / SECRET_FILE).read_text()
    assert not list((a / "public").glob("*secret*"))
    tests = [pd.read_csv(f / "public" / "test.csv") for f in (a, b)]
    assert not tests[0]["id"].equals(tests[1]["id"])
    rows = [t.drop(columns="id").sort_values(list(t.columns[1:]), ignore_index=True) for t in tests]
    pd.testing.assert_frame_equal(*rows)  # the same test rows under other ids


def test_split_membership_is_the_public_seeds():
    """Test rows depend on ``split_seed`` only, never on the secret."""
    spec = _spec("seattle-weather")
    rows = lambda df: set(map(tuple, df.drop(columns=spec.id_column).astype(str).values))  # noqa: E731
    one, two = split_task(spec, b"one")[1], split_task(spec, b"two")[1]
    assert rows(one) == rows(two)
    other = split_task(dataclasses.replace(spec, split_seed=7), b"one")[1]
    assert rows(other) != rows(one)


def test_cache_ignores_builds_of_version_1(tmp_path, monkeypatch):
    """Builds with the leaky ids (version 1) sit in other cache folders: never reused."""
    spec = _spec("penguins")
    current = task_dir(spec, tmp_path)
    monkeypatch.setattr("wmrl_envs.mle.spec.BUILD_VERSION", 1)
    assert task_dir(_spec("penguins"), tmp_path) != current


def test_population_sees_the_same_rows_on_every_build(tmp_path):
    """The reference population (the boards) does not depend on a build's secret."""
    spec = _spec("penguins")
    a, b = (load_data(spec_task(spec, build_task(spec, tmp_path / k, k.encode()))) for k in "ab")
    pd.testing.assert_frame_equal(a.X, b.X)
    pd.testing.assert_frame_equal(a.X_test, b.X_test)
    pd.testing.assert_series_equal(a.y, b.y)
    assert not a.test_ids.equals(b.test_ids)
