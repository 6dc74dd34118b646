"""The analysis package: constant folding, frame tracking, data flow, call effects, reachability,
and the v2 checks built on them (metric-aware outputs, board-fitted quality prior)."""

from __future__ import annotations

import pytest

from wmrl_envs.world_models import CodeCheckWorldModel
from wmrl_envs.world_models.analysis import analyze
from wmrl_envs.world_models.analysis.effects import folds, search_size
from wmrl_envs.world_models.analysis.facts import Instance
from wmrl_envs.world_models.quality import family, family_prior
from wmrl_envs.world_models.static import QUALITY_FLOOR

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


def facts(code: str):
    return analyze(code, CONTEXT["files"])


def written(code: str) -> dict:
    prog = facts(code)
    return prog.writes[-1].frame.values


@pytest.fixture(scope="module")
def wm() -> CodeCheckWorldModel:
    return CodeCheckWorldModel()


# ---- folding ----------------------------------------------------------------------------------
def test_folding_conditions_and_paths():
    prog = facts('DATA = "data"\nif __name__ == "__main__":\n    import pandas as pd\n'
                 '    df = pd.read_csv(DATA + "/train.csv")\n')
    assert [r.value for r in prog.files] == ["data/train.csv"]
    assert not facts('import pandas as pd\nif False:\n    pd.read_csv("data/train.csv")\n').files
    assert not facts('import pandas as pd\nif 1 > 2:\n    pd.read_csv("data/train.csv")\n').files


# ---- reachability -----------------------------------------------------------------------------
def test_uncalled_functions_and_dead_code_do_not_count():
    prog = facts(HEAD.replace("m = ", "def unused():\n    m2 = ").replace('"churn"])\n', '"churn"])\n    return m2\n'))
    assert not prog.fits
    called = HEAD.replace("m = ", "def build():\n    return ").replace('"churn"])\n', '"churn"])\nm = build()\n')
    assert len(facts(called).fits) == 1
    assert facts(HEAD + 'raise SystemExit(1)\nprint("x")\n').stops is not None
    assert facts(HEAD + 'import sys\nsys.exit(0)\n').stops is None


def test_a_swallowed_fault_falls_back_to_the_handler(wm, context):
    code = GOOD.replace('model.fit(X, train["churn"])',
                        'try:\n    model.fit(X, train["churned"])\nexcept Exception:\n    pass')
    pred = wm.predict(context, code)
    assert pred.checks["column_refs"].p_pass > 0.9 and pred.score <= QUALITY_FLOOR  # runs, earns nothing


# ---- frames and columns -----------------------------------------------------------------------
@pytest.mark.parametrize("snippet", [
    'for df in [train, test]:\n    df["ratio"] = df["monthly"] / (df["tenure"] + 1)\nx = train["ratio"]\n',
    'def add(df):\n    df["ratio"] = df["monthly"] * 2\nadd(train)\nx = train["ratio"]\n',
    'train = train.assign(ratio=1.0)\nx = train["ratio"]\n',
    'for c in feats:\n    if train[c].dtype == "object":\n        pass\n',
])
def test_valid_idioms_have_no_column_faults(wm, context, snippet):
    pred = wm.predict(context, HEAD + snippet + GOOD.split("\n", 5)[-1])
    assert pred.checks["column_refs"].p_pass > 0.9, pred.checks["column_refs"]


def test_insert_and_index_count_as_columns(wm, context):
    base = HEAD + 'p = m.predict_proba(test[feats])[:, 1]\n'
    insert = base + ('sub = pd.DataFrame({"churn": p})\nsub.insert(0, "id", test["id"])\n'
                     'sub.to_csv("submission.csv", index=False)\n')
    index = base + 'pd.DataFrame({"churn": p}, index=test["id"]).to_csv("submission.csv")\n'
    for code in (insert, index):
        assert wm.predict(context, code).checks["output_format"].p_pass > 0.9


# ---- data flow of predictions -----------------------------------------------------------------
@pytest.mark.parametrize("tail,why", [
    ('p = np.zeros(len(test))', "constant"),
    ('p = m.predict_proba(train[feats].iloc[:len(test)])[:, 1]', "training rows"),
    ('p = np.random.permutation(m.predict_proba(test[feats])[:, 1])', "shuffled"),
    ('p = 1 - m.predict_proba(test[feats])[:, 1]', "other class"),
    ('p = m.predict(test[feats])', "hard labels"),
    ('p = 0.0 * m.predict_proba(test[feats])[:, 1] + 0.5', "constant"),
])
def test_predictions_that_cannot_score(wm, context, tail, why):
    code = HEAD + tail + '\npd.DataFrame({"id": test["id"], "churn": p}).to_csv("submission.csv", index=False)\n'
    pred = wm.predict(context, code)
    assert pred.score <= QUALITY_FLOOR and why in pred.feedback, pred.feedback


def test_fold_average_and_blend_are_predictions():
    code = HEAD + ('p = np.zeros(len(test))\nfor s in range(3):\n    p += m.predict_proba(test[feats])[:, 1] / 3\n'
                   'sub = pd.DataFrame({"id": test["id"], "churn": p})\nsub.to_csv("submission.csv", index=False)\n')
    assert written(code)["churn"].kind == "pred"


def test_unfitted_model_and_log_target():
    unfit = HEAD + 'm2 = HistGradientBoostingClassifier()\np = m2.predict_proba(test[feats])[:, 1]\n'
    v = facts(unfit).predictions[-1]
    assert not v.fitted
    log = HEAD + 'from sklearn.linear_model import Ridge\nr = Ridge().fit(train[feats], np.log1p(train["monthly"]))\n' \
                 'q = r.predict(test[feats])\nz = np.expm1(r.predict(test[feats]))\n'
    preds = facts(log).predictions
    assert preds[-2].transforms.count("log") == 1 and preds[-1].transforms.count("exp") == 1


def test_class_columns_out_of_order_are_swapped(context):
    from wmrl_envs.world_models.analysis.outputs import submission_faults

    code = HEAD + ('P = m.predict_proba(test[feats])\nsub = pd.DataFrame(P, columns=["b", "a"])\n'
                   'sub.insert(0, "id", test["id"])\nsub.to_csv("submission.csv", index=False)\n')
    w = facts(code).writes[-1]
    ctx = dict(context, task_type="multiclass", metric="log_loss", submission_columns=["id", "a", "b"])
    assert any("swapped" in f.message for f in submission_faults(w.frame, w.lineno, ctx))


# ---- call effects and cost --------------------------------------------------------------------
def test_search_sizes_and_folds():
    grid = Instance("sklearn.model_selection.GridSearchCV", [], {}, positional=[None, {"a": [1, 2, 3], "b": [1, 2]}])
    assert search_size(grid) == 6
    rand = Instance("sklearn.model_selection.RandomizedSearchCV", [], {"n_iter": 4}, positional=[None, {"a": [1, 2, 3, 4, 5]}])
    assert search_size(rand) == 4
    assert folds(None, Instance("sklearn.model_selection.LeaveOneOut", [], {}), 300) == 300
    assert folds(None, Instance("sklearn.model_selection.KFold", [], {"n_splits": 10}), 300) == 10
    assert folds(3, None, 300) == 3


def test_chained_inplace_fillna_is_a_noop_under_copy_on_write():
    from wmrl_envs.world_models import introspect

    prog = facts('import pandas as pd\ndf = pd.read_csv("data/train.csv")\ndf["monthly"].fillna(0, inplace=True)\n')
    assert bool(prog.noop_imputations) == introspect.copy_on_write()


# ---- quality prior ----------------------------------------------------------------------------
def test_quality_prior_reads_the_board_and_knows_non_sklearn_models():
    assert family("statsmodels.api.OLS") == "linear" and family("sklearn.neighbors.KNeighborsRegressor") == "knn"
    assert 0.0 <= family_prior("linear", "no-such-task") <= 1.0
    prog = facts('import numpy as np\nw = np.linalg.lstsq(np.ones((3, 2)), np.ones(3), rcond=None)[0]\n')
    assert prog.handmade_model == "numpy least squares"
    assert family_prior("boosting", "concrete-strength") > family_prior("stump", "concrete-strength")


def test_docstring_mentioning_private_files_is_not_a_read(wm, context):
    pred = wm.predict(context, '"""Never read ../private/test_answer.csv."""\n' + GOOD)
    assert pred.checks["file_refs"].p_pass > 0.9
