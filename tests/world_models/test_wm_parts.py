"""One module of ``world_models.analysis`` at a time: facts, folding, frames, flow, effects, the
analyzer's walk and outputs, each through its own entry point."""

from __future__ import annotations

import ast

import pytest

from wmrl_envs.world_models.analysis import Frame, Program, Val, analyze
from wmrl_envs.world_models.analysis.analyzer import Analyzer
from wmrl_envs.world_models.analysis.effects import folds, search_size
from wmrl_envs.world_models.analysis.facts import (
    UNKNOWN,
    Instance,
    is_numeric,
    public_file,
    rows_of_file,
)
from wmrl_envs.world_models.analysis.outputs import resolve_classes, submission_faults

from .conftest import CONTEXT

SCHEMA = CONTEXT["files"]


def analyzer(code: str) -> Analyzer:
    """An analyzer that has walked ``code`` (its namespace can be queried afterwards)."""
    prog = Program(code)
    prog.tree = ast.parse(code)
    a = Analyzer(prog, SCHEMA)
    a.run()
    return a


def expr(a: Analyzer, text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


# ---- facts ----------------------------------------------------------------------------------------
def test_facts_helpers_and_frame_derive():
    assert is_numeric("int64") and is_numeric("Float32") and is_numeric("boolean") and not is_numeric("object")
    assert public_file("./data/train.csv") == "train.csv" and public_file("out.csv") is None
    assert [rows_of_file(n) for n in ("test.csv", "sample_submission.csv", "train.csv", "x.csv", None)] == \
        ["test", "test", "train", "?", "?"]
    f = Frame("train.csv", {"a", "b"}, values={"a": Val("const"), "b": Val("const")})
    g = f.derive({"a"})
    assert g.columns == {"a"} and set(g.values) == {"a"} and f.columns == {"a", "b"}
    g.created.add("z")
    assert "z" not in f.created  # derived frames do not share their sets
    assert f.column("c", 3).kind == "column" and f.column("a", 3).kind == "const"
    assert Val("pred").with_("log", "exp", output="label").transforms == ("log", "exp")


# ---- folding --------------------------------------------------------------------------------------
def test_folding_constants_paths_and_comprehensions():
    a = analyzer('import os\nimport pandas as pd\nN = 3\nD = "data"\ndf = pd.read_csv("data/train.csv")\n')
    assert a.fold(expr(a, "N * 2 + 1")) == 7
    assert a.fold(expr(a, 'os.path.join(D, "train.csv")')) == "data/train.csv"
    assert a.fold(expr(a, 'f"{D}/x.csv"')) == "data/x.csv"
    assert a.fold(expr(a, "2 ** 100")) == float("inf")  # never materialised
    assert a.fold(expr(a, "undefined_name")) is UNKNOWN
    assert a.fold(expr(a, '[c for c in df.columns if c not in ["id", "churn"]]')) == ["contract", "monthly", "tenure"]
    assert a.fold(expr(a, '[c for c in df.columns if df[c].dtype == "object"]')) == ["contract"]
    assert a.truth(expr(a, "N > 2")) is True and a.truth(expr(a, "len(df) > 2")) is None
    assert a.trip_count(expr(a, "range(2, 12, 2)")) == 5


# ---- frames ---------------------------------------------------------------------------------------
def test_frames_follow_columns_through_selections():
    a = analyzer('import pandas as pd\ndf = pd.read_csv("data/train.csv")\ntest = pd.read_csv("data/test.csv")\n'
                 'X = df.drop(columns=["churn", "id"])\nnum = df.select_dtypes(include="number")\n'
                 'enc = pd.get_dummies(X)\nhead = test.head(10)\nsrt = test.sort_values("tenure")\n'
                 'df["ratio"] = df["monthly"] / df["tenure"]\n')
    assert a.frames["X"].columns == {"tenure", "monthly", "contract"}
    assert a.frames["num"].columns == {"id", "tenure", "monthly", "churn"}
    assert a.frames["enc"].encoded and a.frames["enc"].base == frozenset({"tenure", "monthly", "contract"})
    assert a.frames["head"].truncated == 10 and a.frames["head"].rows == "test"
    assert a.frames["srt"].order and a.frames["srt"].order != a.frames["head"].order
    assert "ratio" in a.frames["df"].columns and "ratio" in a.frames["df"].created


# ---- flow -----------------------------------------------------------------------------------------
def test_flow_traces_predictions_through_transforms():
    a = analyzer('import numpy as np\nimport pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n'
                 'df = pd.read_csv("data/train.csv")\ntest = pd.read_csv("data/test.csv")\n'
                 'm = LogisticRegression().fit(df[["tenure"]], df["churn"])\n'
                 'p = m.predict_proba(test[["tenure"]])\nq = 1 - p[:, 1]\nlab = m.predict(test[["tenure"]])\n'
                 'c = np.zeros(len(test))\nr = np.random.permutation(p[:, 1])\n')
    p, q, lab = a.vals["p"], a.vals["q"], a.vals["lab"]
    assert p.kind == "pred" and p.output == "proba_matrix" and p.rows == "test"
    assert q.output == "proba" and "invert" in q.transforms
    assert lab.output == "label" and lab.model == "LogisticRegression"
    assert a.vals["c"].kind == "const" and "shuffle" in a.vals["r"].transforms


# ---- effects --------------------------------------------------------------------------------------
def test_effects_record_fits_files_and_search_sizes():
    prog = analyze('import time\nimport pandas as pd\nfrom sklearn.model_selection import RandomizedSearchCV, '
                   'RepeatedKFold, cross_val_score\nfrom sklearn.ensemble import RandomForestClassifier\n'
                   'df = pd.read_csv("data/train.csv")\nX = df[["tenure"]]\nrf = RandomForestClassifier()\n'
                   'cross_val_score(rf, X, df["churn"], cv=RepeatedKFold(n_splits=3, n_repeats=2))\n'
                   's = RandomizedSearchCV(rf, {"max_depth": [2, 3]}, n_iter=50, cv=4).fit(X, df["churn"])\n'
                   'time.sleep(2)\npd.DataFrame({"id": df["id"]}).to_csv("out.csv", index=False)\n', SCHEMA)
    assert [f.repeats for f in prog.fits] == [6.0, 2 * 4 + 1]  # a grid of 2 caps n_iter=50
    assert prog.sleep_s == 2 and [w.path for w in prog.writes] == ["out.csv"]
    assert [(r.value, r.mode) for r in prog.files][:1] == [("data/train.csv", "read")]
    inst = Instance("sklearn.model_selection.GridSearchCV", [], {}, positional=[UNKNOWN, {"a": [1, 2, 3]}])
    assert search_size(inst) == 3 and folds(UNKNOWN, None, 100) == 5


# ---- analyzer walk --------------------------------------------------------------------------------
def test_the_walk_follows_calls_and_stops_at_exits():
    prog = analyze('import sys\nimport pandas as pd\ndef load():\n    return pd.read_csv("data/train.csv")\n'
                   'def never():\n    pd.read_csv("data/nothing.csv")\ndf = load()\nif False:\n    never()\n'
                   'sys.exit(1)\npd.read_csv("data/test.csv")\n', SCHEMA)
    assert [r.value for r in prog.files] == ["data/train.csv"] and prog.stops == 10


# ---- outputs --------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, kind", [
    (Val("const"), "hack"),
    (Val("pred", rows="train", sliced=True), "hack"),
    (Val("pred", rows="test", fitted=False), "crash"),
    (Val("pred", rows="test", output="label"), "hack"),  # roc_auc grades probabilities
    (Val("pred", rows="test", output="proba", transforms=("log",)), "hack"),
    (Val("pred", rows="test", output="proba"), None),
])
def test_outputs_judge_each_written_value(value, kind):
    frame = Frame(None, {"id", "churn"}, rows="test", values={"churn": value})
    faults = submission_faults(frame, 9, CONTEXT)
    assert [f.kind for f in faults][:1] == ([kind] if kind else [])


def test_outputs_resolve_class_columns_on_multiclass_tasks():
    ctx = dict(CONTEXT, task_type="multiclass", submission_columns=["id", "b", "a"])
    frame = Frame(None, set(), class_columns=Val("pred", output="proba_matrix"))
    out = resolve_classes(frame, ctx)
    assert out.columns == {"a", "b"} and out.values["a"].columns == ("a", "b")
    assert resolve_classes(frame, CONTEXT) is frame  # binary: nothing to resolve
