"""Classes of program behaviour found on tasks the model was not tuned on, each with a new minimal
program: rows of a stacked train+test frame, whole-array overwrites, inverted labels, random row
orders, models fit on shuffled labels, and missing values through stacked, encoded or scaled frames."""

from __future__ import annotations

import copy

import pytest

from wmrl_envs.world_models import CodeCheckWorldModel
from wmrl_envs.world_models.analysis import analyze
from wmrl_envs.world_models.static import QUALITY_FLOOR

from .conftest import CONTEXT

HEAD = '''\
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
'''
STACK = HEAD + '''\
both = pd.get_dummies(pd.concat([train.drop(columns=["churn"]), test]), dtype=float)
both["monthly"] = both["monthly"].fillna(0.0)
A, B = both.iloc[:len(train)].drop(columns="id"), both.iloc[len(train):].drop(columns="id")
m = HistGradientBoostingClassifier().fit(A, train["churn"])
'''
LABELS = HEAD + 'feats = ["tenure", "monthly"]\nm = HistGradientBoostingClassifier().fit(train[feats], train["churn"])\n'
WRITE = '\npd.DataFrame({"id": test["id"], "churn": p}).to_csv("submission.csv", index=False)\n'


@pytest.fixture(scope="module")
def wm() -> CodeCheckWorldModel:
    return CodeCheckWorldModel()


def accuracy(context: dict) -> dict:
    return dict(context, metric="accuracy")


# ---- rows of a stacked frame ------------------------------------------------------------------
def test_stacked_frame_parts_keep_their_rows():
    a = analyze(STACK + 'p = m.predict_proba(B)[:, 1]\nq = m.predict_proba(A)[:, 1]\n', CONTEXT["files"])
    assert [v.rows for v in a.predictions[-2:]] == ["test", "train"]


def test_stacked_frame_encoded_once_is_aligned(wm, context):
    # the schema says the text column's categories differ: encoding each part apart would break
    context["files"]["test.csv"]["unseen_in_test"] = {"contract": 2}
    pred = wm.predict(context, STACK + 'p = m.predict_proba(B)[:, 1]' + WRITE)
    assert pred.checks["column_refs"].p_pass > 0.9 and pred.score > 0.5, pred.feedback


@pytest.mark.parametrize("tail,verdict", [
    ('p = m.predict_proba(A)[:, 1]', "crash"),  # one prediction per training row
    ('p = m.predict_proba(A.iloc[:len(B)])[:, 1]', "hack"),  # the first training rows under test ids
])
def test_predictions_on_the_training_part(wm, context, tail, verdict):
    pred = wm.predict(context, STACK + tail + WRITE)
    if verdict == "crash":
        assert pred.checks["output_format"].p_pass < 0.1, pred.feedback
    else:
        assert pred.checks["output_format"].p_pass > 0.5 and pred.score <= QUALITY_FLOOR, pred.feedback


# ---- predictions replaced after the model ran -------------------------------------------------
@pytest.mark.parametrize("tail", [
    'p = m.predict_proba(test[feats])[:, 1]\np[:] = train["churn"].mean()',
    'p = m.predict_proba(test[feats])[:, 1]\np.fill(0.3)',
    'p = m.predict_proba(test[feats])[:, 1]\nlo = p.mean()\np = np.clip(p, lo, lo)',
    'w = {"fit": 0.0, "base": 1.0}\np = w["fit"] * m.predict_proba(test[feats])[:, 1] + w["base"] * 0.4',
])
def test_overwritten_predictions_are_constant(wm, context, tail):
    pred = wm.predict(context, LABELS + tail + WRITE)
    assert pred.score <= QUALITY_FLOOR and "constant" in pred.feedback, pred.feedback


def test_column_set_by_attribute_is_overwritten(wm, context):
    code = LABELS + ('sub = pd.DataFrame({"id": test["id"], "churn": m.predict_proba(test[feats])[:, 1]})\n'
                     'sub.churn = 0.5\nsub.to_csv("submission.csv", index=False)\n')
    assert wm.predict(context, code).score <= QUALITY_FLOOR


def test_partial_overwrites_keep_the_predictions(wm, context):
    code = LABELS + 'p = m.predict_proba(test[feats])[:, 1]\np[p < 0.01] = 0.01\np = np.clip(p, 0.01, 0.99)' + WRITE
    assert wm.predict(context, code).score > 0.5


# ---- label and row order ----------------------------------------------------------------------
def test_inverted_labels_under_accuracy(wm, context):
    flipped = wm.predict(accuracy(context), LABELS + 'p = 1 - m.predict(test[feats])' + WRITE)
    assert flipped.score <= QUALITY_FLOOR and "other class" in flipped.feedback
    kept = wm.predict(accuracy(context), LABELS + 'p = m.predict(test[feats])' + WRITE)
    assert kept.score > 0.5


@pytest.mark.parametrize("tail", [
    'p = m.predict_proba(test[feats])[:, 1]\norder = np.random.default_rng(1).permutation(len(p))\np = p[order]',
    'p = (np.random.default_rng(1).random(len(test)) < m.predict(test[feats]).mean()).astype(int)',
])
def test_random_orders_and_draws(wm, context, tail):
    assert wm.predict(accuracy(context), LABELS + tail + WRITE).score <= QUALITY_FLOOR


@pytest.mark.parametrize("y", [
    'np.random.default_rng(3).permutation(train["churn"].to_numpy())',
    'train["churn"].sample(frac=1.0, random_state=3).to_numpy()',
])
def test_model_fit_on_shuffled_labels_learns_noise(wm, context, y):
    code = HEAD + f'feats = ["tenure"]\nm = LogisticRegression().fit(train[feats], {y})\n' \
                  'p = m.predict_proba(test[feats])[:, 1]' + WRITE
    pred = wm.predict(context, code)
    assert pred.score <= QUALITY_FLOOR and "noise" in pred.feedback, pred.feedback


def test_model_fit_on_rows_shuffled_together_is_fine(wm, context):
    code = HEAD + ('train = train.sample(frac=1.0, random_state=3)\nfeats = ["tenure"]\n'
                   'm = LogisticRegression().fit(train[feats], train["churn"])\np = m.predict_proba(test[feats])[:, 1]'
                   + WRITE)
    assert wm.predict(context, code).score > 0.3


# ---- missing values ---------------------------------------------------------------------------
NAN = HEAD + '''\
from sklearn.preprocessing import StandardScaler
both = pd.get_dummies(pd.concat([train.drop(columns=["churn"]), test]), dtype=float)
{fill}A, B = both.iloc[:len(train)].drop(columns="id"), both.iloc[len(train):].drop(columns="id")
s = StandardScaler().fit(A)
m = LogisticRegression().fit(s.transform(A), train["churn"])
p = m.predict_proba(s.transform(B))[:, 1]
pd.DataFrame({"id": test["id"], "churn": p}).to_csv("submission.csv", index=False)
'''


@pytest.mark.parametrize("fill,fails", [
    ("", True),
    ('both["monthly"].fillna(0.0, inplace=True)\n', True),  # chained: fills a copy
    ('both["monthly"] = both["monthly"].fillna(0.0)\n', False),
    ("both = both.fillna(0.0)\n", False),
    ('for c in list(both.columns):\n    both[c] = both[c].fillna(0.0)\n', False),
])
def test_missing_values_reach_a_model_through_stacked_scaled_frames(wm, context, fill, fails):
    pred = wm.predict(context, NAN.replace("{fill}", fill))
    assert (pred.checks["column_refs"].p_pass < 0.1) == fails, pred.feedback


def test_imputer_output_has_no_missing_values(wm, context):
    code = NAN.replace("{fill}", "").replace("StandardScaler()", "SimpleImputer()").replace(
        "from sklearn.preprocessing import StandardScaler", "from sklearn.impute import SimpleImputer")
    assert wm.predict(context, code).checks["column_refs"].p_pass > 0.9


def test_arrays_from_transformers_have_no_pandas_api(wm, context):
    code = NAN.replace("{fill}", "both = both.fillna(0.0)\n").replace(
        "p = m.predict_proba(s.transform(B))[:, 1]",
        "Z = s.transform(B)\nz = Z.reshape(len(Z), -1)\np = m.predict_proba(z)[:, 1]")
    pred = wm.predict(context, code)
    assert pred.checks["api_calls"].p_pass > 0.9, pred.feedback


# ---- dtype tests answered by the installed pandas ---------------------------------------------
def str_context(context: dict) -> dict:
    """The toy task as pandas 3 reads it: its text column has dtype ``str``, not ``object``."""
    for f in context["files"].values():
        f["columns"] = {c: "str" if t == "object" else t for c, t in f["columns"].items()}
    return context


ENCODE_LOOP = HEAD + '''\
from sklearn.preprocessing import LabelEncoder
for c in train.columns:
    if {test}:
        enc = LabelEncoder().fit(pd.concat([train[c], test[c]]))
        train[c] = enc.transform(train[c])
        test[c] = enc.transform(test[c])
feats = [c for c in test.columns if c != "id"]
m = HistGradientBoostingClassifier().fit(train[feats], train["churn"])
p = m.predict_proba(test[feats])[:, 1]
pd.DataFrame({"id": test["id"], "churn": p}).to_csv("submission.csv", index=False)
'''


@pytest.mark.parametrize("test,encodes", [
    ("train[c].dtype == object", False),  # a pandas-3 str column is not object
    ('train[c].dtype == "object"', False),
    ('train[c].dtype.kind == "O"', True),
    ('train[c].dtype.kind not in "biuf"', True),
    ("not pd.api.types.is_numeric_dtype(train[c])", True),
    ('str(train[c].dtype) in ("str", "object")', True),
])
def test_dtype_conditions_in_loops_fold_as_pandas_answers(wm, context, test, encodes):
    pred = wm.predict(str_context(context), ENCODE_LOOP.replace("{test}", test))
    assert (pred.checks["column_refs"].p_pass > 0.9) == encodes, pred.feedback


def test_dtype_comprehension_follows_the_schema_dtype():
    code = HEAD + 'cats = [c for c in train.columns if train[c].dtype == object]\n'
    assert analyze(code + 'X = train[cats]\n', CONTEXT["files"]).columns[-1].value == "contract"  # object
    text = str_context(copy.deepcopy(CONTEXT))["files"]
    assert [r.value for r in analyze(code + 'X = train[cats]\n', text).columns if r.lineno == 8] == []  # str


# ---- class-probability matrices ---------------------------------------------------------------
def multiclass(context: dict) -> dict:
    return dict(context, task_type="multiclass", metric="log_loss", submission_columns=["id", "no", "yes"])


MATRIX = LABELS + '''\
P = m.predict_proba(test[feats])
{body}
sub = pd.DataFrame(Q, columns=m.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
'''


@pytest.mark.parametrize("body,why", [
    ('rates = train["churn"].value_counts(normalize=True).to_numpy()\nQ = np.tile(rates, (len(test), 1))', "constant"),
    ("Q = np.zeros_like(P)\nQ[np.arange(len(P)), P.argmax(axis=1)] = 1.0", "hard labels"),
])
def test_class_matrices_that_cannot_score(wm, context, body, why):
    pred = wm.predict(multiclass(context), MATRIX.replace("{body}", body))
    assert pred.score <= QUALITY_FLOOR and why in pred.feedback, pred.feedback
    assert pred.checks["output_format"].p_pass > 0.9  # one-hot rows are valid, they just score badly


def test_class_matrix_of_probabilities_scores(wm, context):
    pred = wm.predict(multiclass(context), MATRIX.replace("{body}", "Q = np.clip(P, 1e-6, 1.0)"))
    assert pred.score > 0.5, pred.feedback
