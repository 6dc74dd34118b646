"""Task specs of the embedded suites: one folder per task under ``wmrl_envs/assets``.

Each folder holds ``config.yaml`` (where the data comes from and how it is split and graded),
``description.md`` (the competition page) and ``leaderboard.csv`` (``rank,team,score``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from wmrl_envs.mle.metrics import get_metric
from wmrl_envs.mle.task import DEFAULT_LIMITS

ASSETS = Path(__file__).resolve().parent.parent / "assets"
SUITES = {"offline": ASSETS / "competitions", "dsbench": ASSETS / "dsbench"}
SPLITS = ("train", "heldout", "test", "all")
TASK_TYPES = ("binary", "multiclass", "regression")
# Bump when the build code changes what it writes, so cached tasks are rebuilt.
# 2: secret ids (the ids of version 1 were a public permutation that gives away the source order).
BUILD_VERSION = 2


@dataclass(frozen=True)
class TaskSpec:
    """One offline task, as recorded in its ``config.yaml``."""

    id: str
    name: str
    split: str
    source: dict
    license: str
    task_type: str
    target: str
    metric: str
    higher_is_better: bool
    folder: Path
    id_column: str = "id"
    positive_class: str | int | None = None  # binary tasks: the raw label that becomes 1
    drop_columns: tuple[str, ...] = ()
    max_rows: int = 6500  # cap on rows (train + test) taken from the source
    resized: bool = False  # max_rows set by ``size=`` rather than the config (no committed board)
    split_seed: int = 42
    test_fraction: float = 0.25
    valid_fraction: float = 0.2  # of train, graded on non-final turns
    limits: dict = field(default_factory=lambda: dict(DEFAULT_LIMITS))

    @classmethod
    def load(cls, folder: str | Path) -> TaskSpec:
        folder = Path(folder)
        cfg = yaml.safe_load((folder / "config.yaml").read_text())
        cfg["drop_columns"] = tuple(cfg.get("drop_columns", ()))
        spec = cls(folder=folder, **cfg)
        metric = get_metric(spec.metric)
        if metric.higher_is_better != spec.higher_is_better:
            raise ValueError(
                f"{folder}/config.yaml: higher_is_better contradicts metric {spec.metric}"
            )
        if spec.task_type not in TASK_TYPES:
            raise ValueError(f"{folder}/config.yaml: task_type must be one of {TASK_TYPES}")
        return spec

    @property
    def fingerprint(self) -> str:
        """Hash of the config and the build version: the cache key of the built data."""
        h = hashlib.sha256((self.folder / "config.yaml").read_bytes())
        h.update(str(BUILD_VERSION).encode())
        if self.resized:
            h.update(f"max_rows={self.max_rows}".encode())
        return h.hexdigest()[:12]

    def with_size(self, size: int) -> TaskSpec:
        """This task built from up to ``size`` source rows (train + test) instead of ``max_rows``."""
        if isinstance(size, bool) or not isinstance(size, int) or size < 100:
            raise ValueError(f"size must be an int >= 100 (source rows, train + test), got {size!r}")
        return dataclasses.replace(self, max_rows=size, resized=True)

    @property
    def description(self) -> str:
        return (self.folder / "description.md").read_text()

    @property
    def leaderboard_path(self) -> Path:
        return self.folder / "leaderboard.csv"


def list_specs(suite: str = "offline", split: str = "all") -> list[TaskSpec]:
    """Specs of an embedded suite (``offline`` or ``dsbench``), filtered by split, sorted by id."""
    if suite not in SUITES:
        raise ValueError(
            f"unknown embedded suite {suite!r}; choose one of {list(SUITES)} or a path"
        )
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {SPLITS}")
    specs = [TaskSpec.load(p.parent) for p in sorted(SUITES[suite].glob("*/config.yaml"))]
    return [s for s in specs if split == "all" or s.split == split]
