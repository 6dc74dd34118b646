"""From a suite name or path to :class:`Task` objects.

``suite`` is an embedded suite (``"offline"``: the MLE-Dojo-style competitions, ``"dsbench"``:
the DSBench-style held-out benchmark), built into the cache on first use, or a path to prepared
MLE-Dojo, MLE-bench or DSBench data (``layouts.py``, ``external.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from wmrl_envs.mle.build import build_suite, cache_dir
from wmrl_envs.mle.external import load_external
from wmrl_envs.mle.metrics import get_metric
from wmrl_envs.mle.spec import SUITES, TaskSpec, list_specs
from wmrl_envs.mle.task import Task


def spec_task(spec: TaskSpec, folder: Path) -> Task:
    """The :class:`Task` of an offline spec built into ``folder`` (a resized one has no board: the
    committed board scores the config's rows)."""
    return Task(
        id=spec.id,
        name=spec.name,
        description=spec.description,
        metric=get_metric(spec.metric),
        public_dir=folder / "public",
        answers_path=folder / "private" / "test_answer.csv",
        id_column=spec.id_column,
        task_type=spec.task_type,
        target=spec.target,
        split=spec.split,
        suite=spec.folder.parent.name,
        license=spec.license,
        limits=dict(spec.limits),
        board_paths=() if spec.resized else (spec.leaderboard_path,),
        work_dir=folder,
        valid_fraction=spec.valid_fraction,
        split_seed=spec.split_seed,
    )


def _select(available: list[str], task_ids: list[str] | None, where: str) -> list[str]:
    if not task_ids:
        return available
    unknown = [t for t in task_ids if t not in available]
    if unknown:
        raise ValueError(
            f"unknown task id(s) {unknown} in {where}; valid ids: {', '.join(available)}"
        )
    return list(task_ids)


@dataclass
class Suite:
    """The tasks of a suite, and the tasks of a user's folder that could not be loaded (and why)."""

    tasks: dict[str, Task]
    problems: dict[str, str] = field(default_factory=dict)


def load_suite(
    suite: str | Path = "offline",
    split: str = "all",
    task_ids: list[str] | None = None,
    root: str | Path | None = None,
    metrics: dict | None = None,
    progress: bool = True,
    *,
    mledojo: str | Path | None = None,
    alignment: str | None = None,
    size: int | None = None,
    mlebench: str | Path | None = None,
) -> Suite:
    """The tasks of ``suite`` (embedded name or data path), in id order, ready to run.

    Args:
        suite: ``"offline"``, ``"dsbench"``, or a path to prepared MLE-Dojo, MLE-bench or DSBench
            data (``layouts.py``), one task or a folder of them.
        split: ``"train"``, ``"heldout"``, ``"test"`` or ``"all"`` (embedded suites only).
        task_ids: keep only these tasks, chosen before anything is loaded (a ``ValueError`` lists
            the valid ids otherwise).
        root: cache folder for built tasks (default: the user's cache dir).
        metrics: ``{task_id: metric name}`` overriding how a folder's tasks are graded.
        progress: show a progress bar while building.
        mledojo: an MLE-Dojo checkout whose metric classes grade MLE-Dojo tasks (default:
            ``$MLEDOJO_HOME``; an importable ``mledojo`` is never used).
        mlebench: an mle-bench checkout whose grade functions grade MLE-bench folders (default:
            ``$MLEBENCH_HOME``; an importable ``mlebench`` is never used). Without one, wmrl's copy
            of mle-bench's rules grades the competitions it covers (``mlebench_rules.py``).
        alignment: DSBench folders: ``"position"`` (DSBench's own row comparison, the default) or
            ``"id"`` (submission rows matched to answers by id first).
        size: embedded suites: build each task from up to this many source rows (train + test)
            instead of the suite's 6,500, e.g. the source's full size; such tasks have no
            leaderboard (their env pays DSBench's RPG).
    """
    if isinstance(suite, str) and suite in SUITES:
        specs = {s.id: s if size is None else s.with_size(size) for s in list_specs(suite, split)}
        ids = _select(list(specs), task_ids, f"suite {suite!r} (split {split!r})")
        folders = build_suite([specs[i] for i in ids], root, progress=progress)
        return Suite({i: spec_task(specs[i], f) for i, f in zip(ids, folders)})
    if size is not None:
        raise ValueError(f"size= builds embedded tasks at another size; {suite!r} is a data folder, used as it is")
    path = Path(suite).expanduser()
    if not path.is_dir():
        raise ValueError(f"suite must be one of {list(SUITES)} or an existing folder, got {suite!r}")
    work = Path(root or cache_dir() / "mle") / "external" / hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    tasks, problems = load_external(
        path, work, task_ids=task_ids, metrics=metrics, mledojo=mledojo, alignment=alignment,
        mlebench=mlebench,
    )
    if not tasks:
        why = "; ".join(f"{k}: {v}" for k, v in problems.items())
        raise ValueError(f"no task of {path} can be loaded ({why})")
    return Suite(tasks, problems)


def load_tasks(*args, **kwargs) -> dict[str, Task]:
    """The tasks of :func:`load_suite` (same arguments), without the list of problems."""
    return load_suite(*args, **kwargs).tasks
