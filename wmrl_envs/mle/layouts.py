"""Finding the tasks in a user's benchmark folder, by its content, without reading any data.

Three layouts are recognised, each as one task or as a folder of tasks:

MLE-Dojo, prepared by its ``prepare/mle.py`` (the registered data dir is ``<comp>/data``)::

    <comp>/data/public/    description.txt, sample_submission.csv, data files under the
                           competition's own names (e.g. cs-training.csv, cs-test.csv)
    <comp>/data/private/   test_answer.csv, public_leaderboard.csv, private_leaderboard.csv
    <comp>/public, <comp>/private          (the older layout, same files)

MLE-bench, prepared by ``mlebench prepare``::

    <comp>/prepared/public/    description.md, sample_submission.csv (or the name config.yaml gives)
    <comp>/prepared/private/   the answers (config.yaml's dataset.answers, else the one JSON-lines
                               file there, else the one CSV), the gold submission (config.yaml's
                               dataset.gold_submission, else gold_submission.csv)
    <comp>/config.yaml, <comp>/leaderboard.csv   (copied from the competition's folder, optional)

  Some ``prepare.py`` zip ``public/``'s CSVs (text-normalization: ``en_train.csv.zip``,
  ``en_test_2.csv.zip``, ``en_sample_submission_2.csv.zip``; invasive-species-monitoring:
  ``sample_submission.csv.zip``, ``train_labels.csv.zip``) and config.yaml names the copy of the
  sample in ``private/``, which the program never sees: the sample is then the zipped one in
  ``public/``, and the task's view holds each zipped CSV extracted beside its zip
  (``external.py``).

  tensorflow2-question-answering's answers are ``private/test.jsonl``, annotated examples that
  mle-bench reads as a list of dicts, beside ``private/gold_submission.csv``, the perfect
  submission (``task.answers_are_json_lines``).

DSBench data modeling (``data.zip`` unpacked beside the repository's ``evaluation/`` and
``save_performance/``; the ``data/`` level is optional)::

    data/data_resplit/<name>/           train.csv, test.csv, the sample under its Kaggle name
    data/answers/<name>/test_answer.csv
    data/task/<name>.txt
    evaluation/<name>_eval.py           --answer_file --predict_file --path --name -> result.txt
    save_performance/{GT,baseline}/<name>/result.txt

:func:`find_tasks` returns a :class:`TaskSource` per task: paths only, so that one broken task
never stops the others from loading (``external.py`` turns sources into tasks one at a time).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

LAYOUTS = (
    "MLE-Dojo (<comp>/data/{public,private} or <comp>/{public,private})",
    "MLE-bench (<comp>/prepared/{public,private})",
    "DSBench (data_resplit/, answers/ and task/, at the root or under data/)",
)
_SAMPLE_NAMES = (
    "sample_submission.csv",
    "sample_solution.csv",
    "sampleSubmission.csv",
    "gender_submission.csv",
)


@dataclass(frozen=True)
class TaskSource:
    """Where one task's files are. Nothing here has been read or checked yet."""

    id: str
    layout: str  # "mle-dojo" | "mle-bench" | "dsbench"
    public: Path  # the folder the program sees as data/
    answers: Path
    description: Path | None = None
    sample: Path | None = None  # the sample submission (None: not found)
    boards: tuple[Path, ...] = ()
    eval_script: Path | None = None  # DSBench: the benchmark's own scoring script
    baseline_result: Path | None = None  # DSBench: save_performance/baseline/<name>/result.txt
    perfect_result: Path | None = None  # DSBench: save_performance/GT/<name>/result.txt
    config: dict | None = None  # MLE-bench: the competition's config.yaml
    gold: Path | None = None  # MLE-bench: the gold submission, where there is one


def find_tasks(path: str | Path) -> list[TaskSource]:
    """The tasks in ``path`` (one task, or a folder of them), in name order.

    Raises ``ValueError`` naming the layouts looked for when ``path`` holds none of them.
    """
    path = Path(path).expanduser()
    if not path.is_dir():
        raise ValueError(
            f"{path} is not a folder: pass a prepared MLE-Dojo, MLE-bench or DSBench folder"
        )
    found = _dsbench(path) or _single(path)
    if found is None:
        found = [t for c in sorted(path.iterdir()) if c.is_dir() for t in _single(c) or []]
    if not found:
        subs = ", ".join(c.name for c in sorted(path.iterdir()) if c.is_dir())[:300] or "none"
        raise ValueError(
            f"{path}: no task in a known layout (looked for {'; '.join(LAYOUTS)}); sub-folders: {subs}"
        )
    return found


def _single(folder: Path) -> list[TaskSource] | None:
    """``folder`` as one MLE-Dojo or MLE-bench task, or None."""
    if (folder / "data" / "public").is_dir() and (folder / "data" / "private").is_dir():
        return [_mledojo(folder.name, folder / "data")]
    if (folder / "prepared" / "public").is_dir() and (folder / "prepared" / "private").is_dir():
        return [_mlebench(folder)]
    if (folder / "public").is_dir() and (folder / "private").is_dir():
        name = folder.parent.name if folder.name in ("data", "prepared") else folder.name
        return [_mledojo(name, folder)]
    return None


def _first(*paths: Path) -> Path | None:
    return next((p for p in paths if p.is_file()), None)


def _mledojo(name: str, data: Path) -> TaskSource:
    public, private = data / "public", data / "private"
    return TaskSource(
        id=name,
        layout="mle-dojo",
        public=public,
        answers=private / "test_answer.csv",
        description=_first(public / "description.txt", public / "description.md"),
        sample=_first(*(public / n for n in _SAMPLE_NAMES)),
        boards=tuple(
            p
            for p in (private / "private_leaderboard.csv", private / "public_leaderboard.csv")
            if p.is_file()
        ),
    )


def _mlebench(folder: Path) -> TaskSource:
    public, private = folder / "prepared" / "public", folder / "prepared" / "private"
    config = _read_config(folder / "config.yaml")
    dataset = (config or {}).get("dataset") or {}

    def named(key: str, where: Path) -> Path | None:
        value = dataset.get(key)
        return where / Path(value).name if isinstance(value, str) else None

    answers = (
        named("answers", private) or _only(private, "*.jsonl") or _only(private, "*.csv") or private / "answers.csv"
    )
    sample = named("sample_submission", public)
    if sample is None or not sample.is_file():
        sample = _sample(public)
    gold = named("gold_submission", private) or private / "gold_submission.csv"
    return TaskSource(
        id=folder.name,
        layout="mle-bench",
        public=public,
        answers=answers,
        description=_first(
            public / "description.md", folder / "description.md", public / "description.txt"
        ),
        sample=sample if sample is not None and sample.is_file() else None,
        boards=tuple(p for p in (folder / "leaderboard.csv",) if p.is_file()),
        config=config,
        gold=gold if gold.is_file() else None,
    )


def _only(folder: Path, pattern: str) -> Path | None:
    """The one file of ``folder`` matching ``pattern``, else None."""
    found = sorted(folder.glob(pattern))
    return found[0] if len(found) == 1 else None


def _read_config(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def _dsbench(root: Path) -> list[TaskSource] | None:
    """The tasks of a DSBench data-modeling folder, or None if ``root`` is not one."""
    base = next((b for b in (root, root / "data") if (b / "data_resplit").is_dir()), None)
    if base is None:
        return None
    perf = next(
        (d for d in (root / "save_performance", base / "save_performance") if d.is_dir()), None
    )
    scripts = [root / "evaluation", base / "evaluation"]
    out = []
    for folder in sorted(p for p in (base / "data_resplit").iterdir() if p.is_dir()):
        name = folder.name
        out.append(
            TaskSource(
                id=name,
                layout="dsbench",
                public=folder,
                answers=base / "answers" / name / "test_answer.csv",
                description=_first(base / "task" / f"{name}.txt"),
                sample=_sample(folder),
                eval_script=_first(*(d / f"{name}_eval.py" for d in scripts)),
                baseline_result=_first(perf / "baseline" / name / "result.txt") if perf else None,
                perfect_result=_first(perf / "GT" / name / "result.txt") if perf else None,
            )
        )
    return out


def _sample(folder: Path) -> Path | None:
    """The sample submission under its Kaggle name (any ``*sample*``/``*submission*`` CSV last),
    or zipped (``<name>.csv.zip``, as mle-bench ships text-normalization's and
    invasive-species-monitoring's ``public/``; the task's view holds it extracted)."""
    for pattern in ("*.csv", "*.csv.zip"):
        suffix = pattern[1:]
        known = _first(*(folder / (n[: -len(".csv")] + suffix) for n in _SAMPLE_NAMES))
        if known is not None:
            return known
        guesses = sorted(
            p
            for p in folder.glob(pattern)
            if "sample" in p.name.lower() or "submission" in p.name.lower()
        )
        if guesses:
            return guesses[0] if len(guesses) == 1 else None
    return None


def zipped_csvs(public: Path) -> list[Path]:
    """The CSVs ``public`` ships zipped, one per ``<name>.csv.zip`` (mle-bench's ``prepare.py``
    zips some, e.g. text-normalization's ``en_train.csv.zip``), when ``<name>.csv`` is not there."""
    return sorted(p for p in public.glob("*.csv.zip") if p.is_file() and not p.with_suffix("").exists())
