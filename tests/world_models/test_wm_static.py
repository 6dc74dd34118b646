"""CodeCheckWorldModel: each check catches its own fault and passes a correct program."""

from __future__ import annotations

import pytest

from wmrl_envs.world_models import CHECKS, CodeCheckWorldModel, predict_batch
from wmrl_envs.world_models.base import Prediction

from .conftest import GOOD

LOGISTIC = '''\
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv").fillna(0)
test = pd.read_csv("data/test.csv").fillna(0)
cols = ["tenure", "monthly"]
model = LogisticRegression(max_iter=500)
model.fit(train[cols], train["churn"])
pd.DataFrame({"id": test["id"], "churn": model.predict_proba(test[cols])[:, 1]}).to_csv("submission.csv", index=False)
'''


def edit(old: str, new: str, code: str = GOOD) -> str:
    assert old in code, old
    return code.replace(old, new)


# (check that must fail, faulty program): each differs from a correct program by one fault.
FAULTS = [
    ("syntax", edit('model.fit(X, train["churn"])', 'model.fit(X train["churn"])')),
    ("imports", edit("import numpy as np\n", "import numpy as np\nimport lightgbm_nonexistent\n")),
    ("imports", edit("import numpy as np\n", "import numpy as np\nfrom .helpers import tune\n")),
    ("names", edit('model.fit(X, train["churn"])', 'modle.fit(X, train["churn"])')),
    ("names", edit("proba = np.clip(", "proba = clip(")),
    ("api_calls", edit("learning_rate=0.05", "learning_rat=0.05")),
    ("api_calls", edit("model.predict_proba(", "model.predict_probas(")),
    ("api_calls", edit("np.clip(", "np.clipp(")),
    ("api_calls", edit("max_iter=200", "max_iter=0")),
    ("api_calls", edit("HistGradientBoostingClassifier(max_iter=200", "HistGradientBoostingClassifier(200")),
    ("api_calls", edit("pd.get_dummies(train[features])", "pd.get_dummies(train[features], prefix_sepp='_')")),
    ("file_refs", edit('"data/test.csv"', '"data/holdout.csv"')),
    ("file_refs", edit('"data/test.csv"', '"../private/test_answer.csv"')),
    ("file_refs", edit('"data/train.csv"', '"train.csv"')),
    ("file_refs", edit('"data/train.csv"', '"/etc/passwd"')),
    ("column_refs", edit('train["churn"]', 'train["churned"]')),
    ("column_refs", edit('sub = pd.DataFrame', 'leak = test["churn"]\nsub = pd.DataFrame')),
    ("column_refs", edit('["tenure", "monthly"]', '["tenure", "monthly", "contract"]', LOGISTIC)),
    ("column_refs", LOGISTIC.replace(".fillna(0)", "")),
    ("compute_budget", edit("max_iter=200", "max_iter=10**7")),
    ("compute_budget", edit("sub = pd.DataFrame", "while True:\n    pass\nsub = pd.DataFrame")),
    ("compute_budget", edit("sub = pd.DataFrame", "big = np.zeros((200000, 200000))\nsub = pd.DataFrame")),
    ("compute_budget", edit("sub = pd.DataFrame", "import time\ntime.sleep(3600)\nsub = pd.DataFrame")),
    ("output_format", edit('sub.to_csv("submission.csv", index=False)', 'print(sub.head())')),
    ("output_format", edit('"submission.csv"', '"output/submission.csv"')),
    ("output_format", edit("index=False", "index=False, header=False")),
    ("output_format", edit(", index=False", "")),
    ("output_format", edit('"churn": proba', '"prediction": proba')),
]


@pytest.fixture(scope="module")
def model() -> CodeCheckWorldModel:
    return CodeCheckWorldModel()


@pytest.mark.parametrize("code", [GOOD, LOGISTIC], ids=["hgb", "logistic"])
def test_correct_programs_pass_every_check(model, context, code):
    pred = model.predict(context, code)
    assert set(pred.checks) == set(CHECKS)
    failing = {k: v.reason for k, v in pred.checks.items() if v.p_pass < 0.9}
    assert not failing
    assert 0.3 < pred.score <= 1.0


@pytest.mark.parametrize("check,code", FAULTS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(FAULTS)])
def test_each_check_catches_its_own_fault(model, context, check, code):
    pred = model.predict(context, code)
    assert pred.checks[check].p_pass < 0.5, pred.checks[check]
    others = {k: v.reason for k, v in pred.checks.items() if k != check and v.p_pass < 0.5}
    assert not others, f"fault also blamed on {others}"
    assert pred.score < 0.1 < model.predict(context, GOOD).score
    if check != "syntax":
        assert "line" in pred.checks[check].reason or check in ("output_format", "compute_budget")


def test_reasons_point_at_the_fix(model, context):
    pred = model.predict(context, FAULTS[3][1])
    assert "'modle'" in pred.checks["names"].reason and "'model'" in pred.checks["names"].reason
    pred = model.predict(context, edit("learning_rate=0.05", "learning_rat=0.05"))
    assert "learning_rate" in pred.checks["api_calls"].reason
    pred = model.predict(context, edit('"data/train.csv"', '"train.csv"'))
    assert "data/train.csv" in pred.checks["file_refs"].reason
    assert "FAIL file_refs" in pred.feedback.splitlines()[1]


def test_syntax_error_scores_zero_and_skips_other_checks(model, context):
    pred = model.predict(context, "def f(:\n")
    assert pred.score == 0.0
    assert pred.checks["syntax"].p_pass == 0.0
    assert all(v.p_pass == 0.5 for k, v in pred.checks.items() if k != "syntax")


def test_regression_task_rejects_a_classifier(model, context):
    context["task_type"] = "regression"
    pred = model.predict(context, GOOD)
    assert pred.checks["api_calls"].p_pass < 0.5 and "continuous target" in pred.checks["api_calls"].reason


def test_nan_tolerant_model_needs_no_imputer(model, context):
    nan_logistic = LOGISTIC.replace(".fillna(0)", "")
    assert model.predict(context, nan_logistic).checks["column_refs"].p_pass < 0.5  # monthly has NaNs
    hgb = edit("from sklearn.linear_model import LogisticRegression",
               "from sklearn.ensemble import HistGradientBoostingClassifier",
               nan_logistic).replace("LogisticRegression(max_iter=500)", "HistGradientBoostingClassifier()")
    assert model.predict(context, hgb).checks["column_refs"].p_pass > 0.9


def test_quality_prior_orders_model_families(model, context):
    def score(code: str) -> float:
        return model.predict(context, code).score

    logistic_scaled = edit("model = LogisticRegression(max_iter=500)",
                           "from sklearn.pipeline import make_pipeline\nfrom sklearn.impute import SimpleImputer\n"
                           "from sklearn.preprocessing import StandardScaler\n"
                           "model = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(max_iter=500))",
                           LOGISTIC)
    dummy = edit("from sklearn.ensemble import HistGradientBoostingClassifier", "from sklearn.dummy import DummyClassifier"
                 ).replace("HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05)", "DummyClassifier()")
    hard_labels = edit("model.predict_proba(X_test)[:, 1]", "model.predict(X_test)")
    assert score(GOOD) > score(logistic_scaled) > score(dummy)
    assert score(GOOD) > score(hard_labels)


def test_batch_matches_single_and_is_deterministic(model, context):
    codes = [GOOD, LOGISTIC, FAULTS[0][1]]
    batch = predict_batch(model, [context] * 3, codes)
    assert [p.score for p in batch] == [model.predict(context, c).score for c in codes]
    assert all(isinstance(p, Prediction) and p.cost_s > 0 for p in batch)


def test_non_code_action_scores_zero_with_the_reason(model, context):
    pred = model.predict(context, 3)
    assert pred.score == 0.0 and "not Python source" in pred.checks["syntax"].reason


def test_context_without_schema_still_predicts(model):
    pred = model.predict({"task_id": "bare"}, GOOD)
    assert 0.0 < pred.score < 1.0 and pred.checks["column_refs"].p_pass >= 0.5
