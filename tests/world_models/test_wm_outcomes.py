"""Separating "the run fails" from "the run succeeds and earns nothing", and the schema facts
(distinct counts, categories unseen in train) that judge one-hot encodings."""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from wmrl_envs.mle.task import file_schema
from wmrl_envs.world_models import CodeCheckWorldModel
from wmrl_envs.world_models.analysis.analyzer import same_categories
from wmrl_envs.world_models.checks import success_probability
from wmrl_envs.world_models.static import QUALITY_FLOOR, effective_quality

from .conftest import CONTEXT, GOOD

HEAD = '''\
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
feats = ["tenure", "monthly"]
m = HistGradientBoostingClassifier().fit(train[feats], train["churn"])
'''
WRITE = 'pd.DataFrame({"id": test["id"], "churn": p}).to_csv("submission.csv", index=False)\n'


@pytest.fixture(scope="module")
def wm() -> CodeCheckWorldModel:
    return CodeCheckWorldModel()


def test_effective_quality_is_monotone_and_floored():
    qs = [i / 100 for i in range(101)]
    eff = [effective_quality(q) for q in qs]
    assert eff[0] == QUALITY_FLOOR and all(a <= b for a, b in zip(eff, eff[1:]))
    assert effective_quality(0.5) == 0.5


def test_a_run_that_earns_nothing_ranks_above_a_run_that_fails(wm):
    hack = wm.predict(CONTEXT, HEAD + "p = np.zeros(len(test))\n" + WRITE)
    crash = wm.predict(CONTEXT, HEAD.replace('"churn"]', '"churned"]') + "p = m.predict_proba(test[feats])[:, 1]\n" + WRITE)
    good = wm.predict(CONTEXT, GOOD)
    assert crash.score < 0.05 < hack.score <= QUALITY_FLOOR < good.score
    assert success_probability(hack.checks) > 0.9  # the hack runs: its low score comes from the quality


def test_dropna_on_test_rows_with_missing_values_writes_too_few_rows(wm):
    code = HEAD.replace('test = pd.read_csv("data/test.csv")', 'test = pd.read_csv("data/test.csv").dropna()')
    pred = wm.predict(CONTEXT, code + "p = m.predict_proba(test[feats])[:, 1]\n" + WRITE)
    assert pred.checks["output_format"].p_pass < 0.1 and "dropna" in pred.checks["output_format"].reason
    subset = code.replace(".dropna()", '.dropna(subset=["tenure"])')  # tenure has no missing values
    assert wm.predict(CONTEXT, subset + "p = m.predict_proba(test[feats])[:, 1]\n" + WRITE
                      ).checks["output_format"].p_pass > 0.9


@pytest.mark.parametrize("line,risky", [
    ('assert cv > 0.9, "model too weak"', True),
    ("assert p.min() >= 0.01", True),
    ("assert pd.Series(p).between(0.01, 0.99).all()", True),
    ("assert len(p) == len(test)", False),
    ("assert p is not None", False),
])
def test_asserts_that_bound_a_data_decided_value(wm, line, risky):
    code = HEAD + "p = m.predict_proba(test[feats])[:, 1]\ncv = m.score(train[feats], train['churn'])\n" + WRITE + line + "\n"
    v = wm.predict(CONTEXT, code).checks["output_format"]
    assert (v.p_pass < 0.5) == risky, v


def test_probability_matrix_under_classes_is_traced(wm):
    ctx = copy.deepcopy(CONTEXT)
    ctx.update(task_type="multiclass", metric="log_loss", submission_columns=["id", "a", "b", "c"])
    ctx["files"]["sample_submission.csv"]["columns"] = {"id": "int64", "a": "float64", "b": "float64", "c": "float64"}
    body = HEAD + 'sub = pd.DataFrame(m.predict_proba(test[feats]), columns=m.classes_)\n'
    ok = body + 'sub.insert(0, "id", test["id"])\nsub.to_csv("submission.csv", index=False)\n'
    assert wm.predict(ctx, ok).checks["output_format"].p_pass > 0.9
    shuffled = body + 'sub = sub.sample(frac=1.0).reset_index(drop=True)\nsub.insert(0, "id", test["id"])\n' \
        'sub.to_csv("submission.csv", index=False)\n'
    assert "differently ordered" in wm.predict(ctx, shuffled).feedback


def test_file_schema_counts_distinct_values_and_unseen_categories(tmp_path):
    pd.DataFrame({"id": [1, 2, 3], "c": ["x", "y", "x"], "v": [1.0, None, 2.0]}).to_csv(tmp_path / "train.csv", index=False)
    pd.DataFrame({"id": [4, 5], "c": ["x", "z"], "v": [3.0, 3.0]}).to_csv(tmp_path / "test.csv", index=False)
    train, test = file_schema(tmp_path / "train.csv"), file_schema(tmp_path / "test.csv")
    assert train["n_unique"] == {"id": 3, "c": 2, "v": 2} and "unseen_in_test" not in train
    assert test["unseen_in_test"] == {"c": 1}
    schema = {"train.csv": train, "test.csv": test}
    assert same_categories(schema, ["c"], set()) is False
    assert same_categories(schema, ["c"], {"c"}) is None  # a column the program rewrote
    test["unseen_in_test"], test["n_unique"]["c"] = {"c": 0}, 2
    assert same_categories(schema, ["c"], set()) is True


def test_separate_dummies_are_judged_by_the_schema(wm):
    code = GOOD.replace(".reindex(columns=X.columns, fill_value=0)", "")
    ctx = copy.deepcopy(CONTEXT)
    assert 0.5 < wm.predict(ctx, code).checks["column_refs"].p_pass < 0.9  # no counts: a maybe
    ctx["files"]["train.csv"]["n_unique"] = {"contract": 3}
    ctx["files"]["test.csv"].update(n_unique={"contract": 3}, unseen_in_test={"contract": 0})
    assert wm.predict(ctx, code).checks["column_refs"].p_pass > 0.9
    ctx["files"]["test.csv"]["unseen_in_test"] = {"contract": 1}
    assert wm.predict(ctx, code).checks["column_refs"].p_pass < 0.1
