"""Building an offline task: packaged dataset -> ``public/``, ``dev/`` and ``private/`` files.

The layout follows MLE-Dojo's prepared competitions::

    public/   train.csv, test.csv (no target), sample_submission.csv, description.md
    private/  test_answer.csv, id_secret.hex (never given to a sandbox)

A validation split for multi-turn episodes is carved from ``public/train.csv`` in the same
layout (:func:`carve_dev`), for any suite whose train.csv holds the targets.

Ids are a permutation keyed by a secret drawn per build and kept in ``private/``; rows are
sorted by id. Which source rows are test rows follows from the public ``split_seed`` (unchanged
since the first build, so the committed boards score the same rows); see :func:`split_task`.
The same spec and secret give byte-identical files. Builds land in the user's cache dir and are
written to a temporary folder first, so concurrent builders (vector envs) never see half a task.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import math
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Set as AbstractSet
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from tqdm.auto import tqdm

from wmrl_envs.mle.datasets import load_source
from wmrl_envs.mle.metrics import get_metric
from wmrl_envs.mle.spec import TaskSpec
from wmrl_envs.mle.task import Task, answers_are_json_lines

_DONE = ".complete"
SECRET_FILE = "id_secret.hex"  # in private/: the key of the task's ids


def cache_dir() -> Path:
    """Root of wmrl's cache: ``$WMRL_CACHE_DIR``, else ``$XDG_CACHE_HOME/wmrl``, else ``~/.cache/wmrl``."""
    if os.environ.get("WMRL_CACHE_DIR"):
        return Path(os.environ["WMRL_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wmrl"


def task_dir(spec: TaskSpec, root: str | Path | None = None) -> Path:
    """Where ``spec`` is built: one folder per task and fingerprint (config and ``BUILD_VERSION``)."""
    suite = spec.folder.parent.name
    return Path(root or cache_dir() / "mle") / suite / f"{spec.id}-{spec.fingerprint}"


def clean_source(spec: TaskSpec) -> pd.DataFrame:
    """The source frame in source order: dropped columns, only rows with a target, 0/1 binaries."""
    df = load_source(spec.source).drop(columns=list(spec.drop_columns))
    if spec.target not in df.columns:
        raise ValueError(f"{spec.id}: target {spec.target!r} is not a column of the source data")
    df = df[df[spec.target].notna()].reset_index(drop=True)
    if spec.task_type == "binary":
        df[spec.target] = (df[spec.target].astype(str) == str(spec.positive_class)).astype(np.int64)
    return df


def public_order(spec: TaskSpec, n_source: int) -> tuple[np.ndarray, np.ndarray]:
    """``(kept, order)``: the source rows kept under ``max_rows`` and the order the split sees.

    Both follow from the public ``split_seed`` alone (they fix which rows are test rows, as in
    every build so far); anyone can recompute them, so they never become ids or row order.
    """
    rng = np.random.default_rng(spec.split_seed)
    kept = np.arange(n_source)
    if n_source > spec.max_rows:
        kept = np.sort(rng.choice(n_source, spec.max_rows, replace=False))
    return kept, np.argsort(rng.permutation(len(kept)))


def secret_ids(secret: bytes, task_id: str, n: int) -> np.ndarray:
    """Ids ``1..n`` of rows ``0..n-1``: a permutation keyed by ``secret`` (HMAC-SHA256 ranks)."""
    keys = [hmac.new(secret, f"{task_id}:{i}".encode(), hashlib.sha256).digest() for i in range(n)]
    ids = np.empty(n, dtype=np.int64)
    ids[sorted(range(n), key=keys.__getitem__)] = np.arange(1, n + 1)
    return ids


def split_task(spec: TaskSpec, secret: bytes) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(train, test)`` with secret ids, each sorted by id.

    Which rows are test rows depends only on the public ``split_seed``; ids and row order depend
    only on ``secret``, so they say nothing about the source order (often sorted by the label).
    """
    df = clean_source(spec)
    kept, order = public_order(spec, len(df))
    df = df.iloc[kept].reset_index(drop=True)
    df.insert(0, spec.id_column, secret_ids(secret, spec.id, len(df)))
    features = [c for c in df.columns if c not in (spec.id_column, spec.target)]
    df = df.iloc[order].reset_index(drop=True)[[spec.id_column, *features, spec.target]]
    train, test = _split(df, spec.target, spec.task_type, spec.test_fraction, spec.split_seed)
    return _by_id(train, spec.id_column), _by_id(test, spec.id_column)


def _by_id(df: pd.DataFrame, id_column: str) -> pd.DataFrame:
    return df.sort_values(id_column, ignore_index=True)


def _split(
    df: pd.DataFrame, label: str | None, task_type: str, fraction: float, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded split, stratified on ``label`` for classification when every class has 2+ rows."""
    stratify = None
    if label is not None and task_type != "regression":
        counts = df[label].value_counts()
        stratify = df[label] if len(counts) > 1 and counts.min() >= 2 else None
    a, b = train_test_split(df, test_size=fraction, random_state=seed, stratify=stratify)
    return a.sort_index(), b.sort_index()


def classes_of(spec: TaskSpec, y: pd.Series) -> list[str]:
    """Class labels as they appear in submissions (sorted text)."""
    return sorted({str(v) for v in y.unique()}) if spec.task_type != "regression" else []


def submission_frames(
    spec: TaskSpec, train: pd.DataFrame, test: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(sample_submission, answers)`` for ``test`` in the metric's submission format.

    The sample predicts the training prior (probabilities), the majority class (labels) or the
    training mean (median for MAE): the trivial baseline of the board and of DSBench's RPG.
    """
    metric = get_metric(spec.metric)
    ids = test[[spec.id_column]].reset_index(drop=True)
    y_train, y_test = train[spec.target], test[spec.target].reset_index(drop=True)
    sample, answers = ids.copy(), ids.copy()
    if metric.kind == "proba" and spec.task_type == "multiclass":
        prior = y_train.astype(str).value_counts(normalize=True)
        for c in classes_of(spec, y_train):
            sample[c] = float(prior.get(c, 0.0))
            answers[c] = (y_test.astype(str) == c).astype(np.int64)
    elif metric.kind == "proba":
        sample[spec.target] = float(y_train.mean())
        answers[spec.target] = y_test
    elif metric.kind == "label":
        sample[spec.target] = y_train.mode().sort_values().iloc[0]
        answers[spec.target] = y_test
    else:
        mean = math.fsum(y_train) / len(y_train)  # exactly rounded: the same in any row order
        sample[spec.target] = float(y_train.median()) if spec.metric == "mae" else mean
        answers[spec.target] = y_test
    return sample, answers


def _write_csv(df: pd.DataFrame, path: Path) -> None:
    df.to_csv(path, index=False, lineterminator="\n")


def _atomic_build(dest: Path, write) -> Path:
    """Run ``write(tmp_folder)`` and move the result to ``dest`` (no-op if already built)."""
    if (dest / _DONE).exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        write(tmp)
        (tmp / _DONE).touch()
        try:
            os.rename(tmp, dest)
        except OSError:  # another process finished the same build first
            if not (dest / _DONE).exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def build_task(spec: TaskSpec, root: str | Path | None = None, secret: bytes | None = None) -> Path:
    """Build ``spec`` under the cache (no-op when already built); returns the task folder.

    ``secret`` keys the ids (default: a fresh one); it is kept in ``private/`` and the same
    secret gives byte-identical files.
    """
    secret = secrets.token_bytes(32) if secret is None else secret

    def write(tmp: Path) -> None:
        train, test = split_task(spec, secret)
        sample, truth = submission_frames(spec, train, test)
        public, private = tmp / "public", tmp / "private"
        public.mkdir()
        private.mkdir()
        _write_csv(train, public / "train.csv")
        _write_csv(test.drop(columns=[spec.target]), public / "test.csv")
        _write_csv(sample, public / "sample_submission.csv")
        (public / "description.md").write_text(spec.description)
        _write_csv(truth, private / "test_answer.csv")
        (private / SECRET_FILE).write_text(secret.hex() + "\n")

    return _atomic_build(task_dir(spec, root), write)


def carve_dev(task: Task, dest: Path, fraction: float = 0.2, seed: int = 42, max_rows: int | None = None) -> Path:
    """Carve a validation split from ``task``'s train file into ``dest`` (built once).

    ``dest/public`` mirrors the task's public folder under the same file names (train file, test
    file without targets, sample submission, and every other data file linked as it is) and
    ``dest/private/test_answer.csv`` holds the held-out targets in the submission format. With
    ``max_rows``, both parts come from a seeded sample of that many train rows.
    Raises ``ValueError`` when there is no train file with the targets, and for answers in JSON
    lines (tensorflow2-question-answering), which held-out train rows cannot stand in for.
    """
    if answers_are_json_lines(task.answers_path):
        raise ValueError(
            f"task {task.id}: its answers are JSON lines ({task.answers_path.name}), graded by mle-bench's "
            "grade function only; no validation split is carved (non-final turns only check the format)"
        )
    train_name, test_name = task.train_file, task.test_file
    if train_name is None or test_name is None:
        raise ValueError(f"task {task.id}: no train and test file to carve a validation split from")

    def write(tmp: Path) -> None:
        train = pd.read_csv(task.public_dir / train_name, low_memory=False)
        dense = task.id_column in train.columns and _dense_ids(train[task.id_column], task.public_dir / test_name,
                                                               task.id_column)
        if max_rows is not None and len(train) > max_rows:
            train = train.sample(n=max_rows, random_state=seed).sort_index()
        cols, target = task.prediction_columns, task.target
        if task.id_column not in train.columns:
            raise ValueError(f"{train_name} has no {task.id_column!r} column")
        if all(c in train.columns for c in cols):
            drop = cols
        elif target is not None and target in train.columns and task.metric.kind == "proba" and len(cols) > 1:
            drop = [target]
        else:
            raise ValueError(f"{train_name} lacks the target column(s) {cols}")
        label = target if target in train.columns else (cols[0] if len(cols) == 1 else None)
        fit, held = _split(train, label, task.task_type, fraction, seed)
        if dense:
            fit, held = _renumbered(fit, held, task.id_column, seed)
        truth = held[[task.id_column]].copy()
        for c in cols:
            truth[c] = (
                held[c] if c in held.columns else (held[target].astype(str) == c).astype(np.int64)
            )
        sample = pd.DataFrame({c: [task.sample[c].iloc[0]] * len(held) for c in cols})
        sample.insert(0, task.id_column, held[task.id_column].to_numpy())
        public, private = tmp / "public", tmp / "private"
        public.mkdir()
        private.mkdir()
        carved = {train_name, test_name, task.sample_name}
        # a zipped copy of a carved file (mle-bench's public/ zips, extracted in the task's view) would
        # hold the held-out rows: left out too
        link_tree(task.public_dir, public, carved | {f"{n}.zip" for n in carved})
        _write_csv(fit, public / train_name)
        _write_csv(held.drop(columns=drop), public / test_name)
        _write_csv(sample, public / task.sample_name)
        (public / "description.md").write_text(_restated(task.description, {train_name: len(fit), test_name: len(held)}))
        _write_csv(truth, private / "test_answer.csv")

    return _atomic_build(dest, write)


def _dense_ids(train_ids: pd.Series, test_file: Path, id_column: str) -> bool:
    """Whether the ids of the train file and the test file together are exactly ``1..N`` (the
    embedded suites' layout), which a carved split's ids must then also be."""
    ids = pd.concat([train_ids, pd.read_csv(test_file, usecols=[id_column])[id_column]])
    if not pd.api.types.is_integer_dtype(ids):
        return False
    return bool(np.array_equal(np.sort(ids.to_numpy()), np.arange(1, len(ids) + 1)))


def _renumbered(fit: pd.DataFrame, held: pd.DataFrame, id_column: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fresh ids ``1..n`` over both parts, in a seeded random order, each part sorted by id: a
    split carved from a sample must not be told from a whole task by the gaps in its ids."""
    ids = np.random.default_rng(seed).permutation(len(fit) + len(held)) + 1
    fit, held = fit.assign(**{id_column: ids[: len(fit)]}), held.assign(**{id_column: ids[len(fit):]})
    return _by_id(fit, id_column), _by_id(held, id_column)


def _restated(description: str, rows: dict[str, int]) -> str:
    """The task page with each file's stated row count ("train.csv: 4875 rows", names in backticks) made the
    carved file's."""
    for name, n in rows.items():
        description = re.sub(rf"(`{re.escape(name)}`: )\d+( rows)", rf"\g<1>{n}\g<2>", description)
    return description


def carved_task(task: Task, dest: Path, fraction: float, seed: int, max_rows: int | None = None) -> Task | None:
    """``task`` on a split carved from its train file by :func:`carve_dev` (None without a train
    file holding the targets): same metric and grader, no leaderboards."""
    try:
        folder = carve_dev(task, dest, fraction, seed, max_rows)
    except ValueError:
        return None
    answers = folder / "private" / "test_answer.csv"
    return dataclasses.replace(
        task,
        public_dir=folder / "public",
        answers_path=answers,
        board_paths=(),
        work_dir=None,
        grader=task.grader.with_answers(answers) if task.grader else None,
        reference_scores={},
    )


def link_tree(src: Path, dest: Path, skip: AbstractSet[str] = frozenset()) -> None:
    """Hard-link (or copy, across file systems) every file of ``src`` not in ``skip`` into ``dest``."""
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        name = path.relative_to(src).as_posix()
        if name in skip:
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path.resolve(), target)
        except OSError:
            shutil.copy2(path, target)


def build_suite(
    specs: list[TaskSpec], root: str | Path | None = None, progress: bool = True
) -> list[Path]:
    """Build every spec not yet in the cache, with a progress bar; returns their folders."""
    todo = [s for s in specs if not (task_dir(s, root) / _DONE).exists()]
    for spec in tqdm(todo, desc="building tasks", unit="task", disable=not (progress and todo)):
        build_task(spec, root)
    return [task_dir(s, root) for s in specs]
