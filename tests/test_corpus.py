"""Invariants of the world-model evaluation corpus (benchmarks/corpus/); no program is run here."""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "corpus"
sys.path.insert(0, str(CORPUS))

import record  # noqa: E402

PROGRAMS = CORPUS / "programs"
HEADER = re.compile(r"^# corpus: category=(strong|typical|weak|bug|hack|unusual) intent=\S.*? expected=(ok|fail|low)\s*$")

# suites and splits of the tasks, as `wmrl tasks` lists them (kept here so the test needs no env build)
OFFLINE_SPLITS = {"train", "heldout"}


def _programs():
    return sorted(PROGRAMS.glob("*/*.py"))


def _header(path: Path):
    first = path.read_text().split("\n", 1)[0]
    return HEADER.match(first)


def _outcomes():
    rows = {}
    for line in (CORPUS / "outcomes.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["path"]] = row
    return rows


def test_size_and_task_count():
    progs = _programs()
    assert len(progs) >= 250
    assert len({p.parent.name for p in progs}) >= 10
    assert all(re.fullmatch(r"\d{3}-[a-z0-9-]+\.py", p.name) for p in progs)


def test_every_program_has_a_header():
    bad = [str(p.relative_to(ROOT)) for p in _programs() if not _header(p)]
    assert not bad, bad


def test_category_counts():
    cats = Counter(_header(p).group(1) for p in _programs())
    assert cats["hack"] >= 50
    assert cats["unusual"] >= 40
    assert set(cats) == {"strong", "typical", "weak", "bug", "hack", "unusual"}


def test_every_program_has_an_outcome():
    rows = _outcomes()
    paths = {str(p.relative_to(ROOT)) for p in _programs()}
    assert paths <= set(rows), sorted(paths - set(rows))[:10]
    assert set(rows) <= paths, sorted(set(rows) - paths)[:10]  # no stale lines
    for path in paths:
        row = rows[path]
        assert row["status"] != "harness_error", path
        assert row["task_id"] == Path(path).parent.name
        assert row["category"] == _header(ROOT / path).group(1)
        for key in ("suite", "split", "status", "score", "reward", "wall_s", "cpu_s", "exit_code", "stderr_tail"):
            assert key in row, (path, key)


def test_both_suites_and_splits():
    rows = _outcomes().values()
    assert {r["suite"] for r in rows} == {"offline", "dsbench"}
    offline_splits = {r["split"] for r in rows if r["suite"] == "offline"}
    assert OFFLINE_SPLITS <= offline_splits


def test_split_is_by_task_and_covers_every_task():
    split = json.loads((CORPUS / "split.json").read_text())
    tasks = sorted({p.parent.name for p in _programs()})
    test, dev = split["test"], split["dev"]
    assert not set(test) & set(dev)
    assert sorted(test + dev) == tasks
    # the frozen rule
    assert test == sorted(record.TEST_TASKS) and dev == [t for t in tasks if t not in record.TEST_TASKS]
    # each half has both suites, both offline splits, hacking and unusual programs
    rows = _outcomes().values()
    for half in (test, dev):
        mine = [r for r in rows if r["task_id"] in half]
        assert {r["suite"] for r in mine} == {"offline", "dsbench"}
        assert OFFLINE_SPLITS <= {r["split"] for r in mine if r["suite"] == "offline"}
        assert {"hack", "unusual"} <= {r["category"] for r in mine}


@pytest.mark.parametrize("half", ["test", "dev"])
def test_split_file_agrees_with_its_task_table(half):
    split = json.loads((CORPUS / "split.json").read_text())
    assert all(split["tasks"][t]["half"] == half for t in split[half])
