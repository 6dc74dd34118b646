"""The static model v2 items closed here: a cost model calibrated on measured run times with one-hot
width from the schema, version facts read from the installed packages, a quality prior fitted to
the embedded boards, and label codes traced into the submission."""

from __future__ import annotations

import copy
import importlib.metadata
import inspect

import pandas as pd
import pytest

from wmrl_envs.world_models import CodeCheckWorldModel, compute, introspect
from wmrl_envs.world_models.analysis import analyze
from wmrl_envs.world_models.analysis.outputs import submission_faults
from wmrl_envs.world_models.quality import (
    _SIZED,
    _size,
    boards,
    family_prior,
    global_prior,
    quality_prior,
    size_threshold,
)
from wmrl_envs.world_models.static import safe_unknown

from .conftest import CONTEXT, GOOD


@pytest.fixture(scope="module")
def wm() -> CodeCheckWorldModel:
    return CodeCheckWorldModel()


def schema_with_counts(contract: int) -> dict:
    files = copy.deepcopy(CONTEXT["files"])
    for name in ("train.csv", "test.csv"):
        files[name]["n_unique"] = {c: 10 for c in files[name]["columns"]} | {"contract": contract}
    return files


# ---- cost model ---------------------------------------------------------------------------------
def test_one_hot_width_comes_from_the_schemas_distinct_counts():
    few, many = schema_with_counts(3), schema_with_counts(300)
    prog_few, prog_many = analyze(GOOD, few), analyze(GOOD, many)
    (w_few,), (w_many,) = compute.work_items(prog_few, few), compute.work_items(prog_many, many)
    assert w_few.units == pytest.approx(5000 * (2 + 3) * 2)  # tenure, monthly + 3 contract values; max_iter 200
    assert w_many.units == pytest.approx(5000 * (2 + 300) * 2)
    assert compute.encoded_width({"contract", "tenure"}, few["train.csv"]) == 4
    assert compute.encoded_width(None, CONTEXT["files"]["train.csv"]) is None  # no counts: the fallback


def test_one_hot_encoder_in_a_pipeline_widens_the_features():
    code = GOOD.replace("X = pd.get_dummies(train[features])", "X = train[features]").replace(
        "model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05)",
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import OneHotEncoder\n"
        "model = make_pipeline(OneHotEncoder(handle_unknown='ignore'), HistGradientBoostingClassifier(max_iter=200))")
    schema = schema_with_counts(40)
    work = [w for w in compute.work_items(analyze(code, schema), schema) if w.family == "hist_boosting"]
    assert work and work[0].units == pytest.approx(5000 * (2 + 40) * 2)


def test_start_up_cost_is_per_imported_package():
    plain = analyze('import pandas as pd\ndf = pd.read_csv("data/train.csv")\n')
    sk = analyze("import pandas as pd\nimport sklearn.linear_model\n")
    sm = analyze("import pandas as pd\nimport sklearn\nimport statsmodels.api as sm\nimport scipy\n")
    other = analyze("import lightgbm\n")
    assert compute.startup_seconds(plain) == pytest.approx(compute.IMPORT_BASE_S)
    assert compute.startup_seconds(sk) == pytest.approx(compute.IMPORT_BASE_S + compute.IMPORT_S["sklearn"])
    assert compute.startup_seconds(sm) == pytest.approx(compute.IMPORT_BASE_S + sum(compute.IMPORT_S.values()))
    assert compute.startup_seconds(other) == pytest.approx(compute.IMPORT_BASE_S + compute.OTHER_IMPORT_S)


def test_fitted_cost_constants_are_sane_and_searches_multiply_the_work():
    assert 0.05 < compute.IMPORT_BASE_S < 2 and 0.1 < compute.SCALE < 10
    assert compute.fit_seconds("sklearn.ensemble.RandomForestClassifier", {"n_estimators": 200}, 1000, 10) == \
        pytest.approx(2 * compute.fit_seconds("sklearn.ensemble.RandomForestClassifier", {}, 1000, 10))
    search = GOOD.replace(
        "model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05)",
        "from sklearn.model_selection import GridSearchCV, KFold\n"
        "model = GridSearchCV(HistGradientBoostingClassifier(max_iter=200), {'max_depth': [2, 3, 4]}, cv=KFold(4))")
    plain_s, _ = compute.estimate(analyze(GOOD, CONTEXT["files"]), CONTEXT["files"])
    search_s, why = compute.estimate(analyze(search, CONTEXT["files"]), CONTEXT["files"])
    start = compute.startup_seconds(analyze(GOOD))
    assert search_s - start == pytest.approx(13 * (plain_s - start), rel=0.01)  # 3 candidates x 4 folds + refit
    assert "x13" in " ".join(why)


# ---- version facts --------------------------------------------------------------------------------
def test_versions_are_read_from_the_installed_metadata():
    assert introspect.installed_version("pandas")[:2] == tuple(
        int(p) for p in importlib.metadata.version("pandas").split(".")[:2])
    assert introspect.installed_version("no-such-distribution-xyz") is None
    assert introspect.copy_on_write() == (introspect.installed_version("pandas") >= (3,) or pd.get_option(
        "mode.copy_on_write") is True)


def test_inplace_methods_come_from_the_installed_signatures():
    methods = introspect.inplace_methods()
    assert {"fillna", "replace"} <= methods and "sum" not in methods
    for name in methods:
        assert "inplace" in inspect.signature(getattr(pd.Series, name)).parameters


def test_chained_inplace_clip_is_a_noop_under_copy_on_write():
    prog = analyze('import pandas as pd\ndf = pd.read_csv("data/train.csv")\ndf["monthly"].clip(0, 1, inplace=True)\n',
                   CONTEXT["files"])
    assert bool(prog.noop_imputations) == (introspect.copy_on_write() and "clip" in introspect.inplace_methods())


def test_handle_unknown_options_are_the_installed_encoders():
    from sklearn.preprocessing import OneHotEncoder

    options = introspect.string_options("sklearn.preprocessing.OneHotEncoder", "handle_unknown")
    assert options == set(OneHotEncoder._parameter_constraints["handle_unknown"][0].options)
    assert "error" not in safe_unknown() and "ignore" in safe_unknown()
    assert introspect.string_options("sklearn.preprocessing.OneHotEncoder", "no_such_parameter") is None


def test_an_encoder_that_warns_on_unknown_categories_does_not_fail(wm):
    code = GOOD.replace("X = pd.get_dummies(train[features])", "X = train[features]").replace(
        "X_test = pd.get_dummies(test[features]).reindex(columns=X.columns, fill_value=0)", "X_test = test[features]").replace(
        "model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05)",
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import OneHotEncoder\n"
        "model = make_pipeline(OneHotEncoder(handle_unknown=HOW), HistGradientBoostingClassifier())")
    strict = wm.predict(CONTEXT, code.replace("HOW", "'error'")).checks["column_refs"]
    assert strict.p_pass < 0.5 and "handle_unknown" in strict.reason
    for how in safe_unknown():
        assert wm.predict(CONTEXT, code.replace("HOW", repr(how))).checks["column_refs"].p_pass > 0.9


# ---- quality prior --------------------------------------------------------------------------------
def test_size_thresholds_come_from_the_board_recipes():
    assert set(_SIZED) == {"forest", "tree"}
    assert 10 < size_threshold("forest") < 50  # between forest-10 and forest-50
    assert 2 <= size_threshold("tree") < 4  # between tree-depth-2 and tree-depth-4
    assert _size("forest", {"n_estimators": 10}) == "small_forest" and _size("forest", {"n_estimators": 60}) == "forest"
    assert _size("tree", {"max_depth": 2}) == "stump" and _size("tree", {"max_depth": 5}) == "tree"
    assert _size("tree", {"max_depth": True}) == "tree"


def test_a_program_without_a_model_gets_the_boards_constant_prior():
    task = "concrete-strength"
    prior, why = quality_prior(analyze("import pandas as pd\n"), {"task_id": task})
    assert prior == pytest.approx(family_prior("constant", task)) and "no model" in why
    assert family_prior("constant", task) == pytest.approx(sorted(boards()[task]["constant"])[0], abs=0.05)
    assert global_prior()["constant"] < global_prior()["boosting"]


def test_the_best_model_on_this_tasks_board_sets_the_prior():
    code = ("from sklearn.tree import DecisionTreeRegressor\nfrom sklearn.ensemble import GradientBoostingRegressor\n"
            "a = DecisionTreeRegressor(max_depth=2)\nb = GradientBoostingRegressor(n_estimators=50)\n")
    prior, why = quality_prior(analyze(code), {"task_id": "concrete-strength"})
    assert "GradientBoosting" in why and prior == pytest.approx(family_prior("boosting", "concrete-strength"))


# ---- label codes ----------------------------------------------------------------------------------
TEXT_LABELS = copy.deepcopy(CONTEXT)
TEXT_LABELS.update(metric="accuracy", task_type="multiclass")
TEXT_LABELS["files"]["train.csv"]["columns"]["churn"] = "object"
TEXT_LABELS["files"]["sample_submission.csv"]["columns"]["churn"] = "object"
CODED = GOOD.replace("model.fit(X, train[\"churn\"])", "from sklearn.preprocessing import LabelEncoder\n"
                     "le = LabelEncoder()\ny = le.fit_transform(train[\"churn\"])\nmodel.fit(X, y)").replace(
    "proba = np.clip(model.predict_proba(X_test)[:, 1], 0, 1)", "proba = model.predict(X_test)")


@pytest.mark.parametrize("tail, hack", [
    ("", True),
    ("proba = le.inverse_transform(proba)\n", False),
    ("proba = le.classes_[proba]\n", False),
    ("proba = pd.Series(proba).map({0: 'no', 1: 'yes'})\n", False),
])
def test_label_codes_written_as_labels(tail, hack):
    code = CODED.replace("sub = pd.DataFrame", tail + "sub = pd.DataFrame")
    w = analyze(code, TEXT_LABELS["files"]).writes[-1]
    faults = submission_faults(w.frame, w.lineno, TEXT_LABELS)
    assert any("integer codes" in f.message for f in faults) == hack


def test_label_codes_are_fine_for_numeric_labels_and_other_coders():
    w = analyze(CODED, CONTEXT["files"]).writes[-1]
    assert not any("integer codes" in f.message for f in submission_faults(w.frame, w.lineno, CONTEXT))
    mapped = CODED.replace("y = le.fit_transform(train[\"churn\"])", "y = train[\"churn\"].map({'no': 0, 'yes': 1})")
    w = analyze(mapped, TEXT_LABELS["files"]).writes[-1]
    assert any("integer codes" in f.message for f in submission_faults(w.frame, w.lineno, TEXT_LABELS))
    factorized = CODED.replace("y = le.fit_transform(train[\"churn\"])", "y = pd.factorize(train[\"churn\"])[0]")
    w = analyze(factorized, TEXT_LABELS["files"]).writes[-1]
    assert any("integer codes" in f.message for f in submission_faults(w.frame, w.lineno, TEXT_LABELS))


# ---- semantics found on the dev half (general pandas / numpy facts) --------------------------------
def test_inplace_frame_methods_change_the_frame_every_name_shares():
    code = ('import pandas as pd\ndef prep(df):\n    df.drop(columns=["contract"], inplace=True)\n'
            '    df.rename(columns={"tenure": "months"}, inplace=True)\n'
            'train = pd.read_csv("data/train.csv")\nprep(train)\ny = train.pop("churn")\nX = train\n')
    prog = analyze(code, CONTEXT["files"])
    fit_frame = analyze(code + "from sklearn.linear_model import LogisticRegression\nLogisticRegression().fit(X, y)\n",
                        CONTEXT["files"]).fits[0].frame
    assert fit_frame.columns is None  # rename with a dict: no longer known exactly
    dropped = analyze(code.replace('    df.rename(columns={"tenure": "months"}, inplace=True)\n', "") +
                      "from sklearn.linear_model import LogisticRegression\nLogisticRegression().fit(X, y)\n",
                      CONTEXT["files"]).fits[0].frame
    assert dropped.columns == {"id", "tenure", "monthly"}  # contract dropped in place, churn popped
    assert not prog.faults


def test_text_columns_dropped_in_place_are_not_fit(wm):
    code = GOOD.replace("X = pd.get_dummies(train[features])", "X = train[features]\n"
                        "X.drop(columns=[\"contract\"], inplace=True)").replace(
        "X_test = pd.get_dummies(test[features]).reindex(columns=X.columns, fill_value=0)", "X_test = test[X.columns]")
    assert wm.predict(CONTEXT, code).checks["column_refs"].p_pass > 0.9
    kept = code.replace("X.drop(columns=[\"contract\"], inplace=True)", "X.drop(columns=[\"contract\"])")
    assert wm.predict(CONTEXT, kept).checks["column_refs"].p_pass < 0.5  # the copy is dropped, X keeps the text


@pytest.mark.parametrize("line, hard", [
    ("proba = np.round(proba, 3)", False),
    ("proba = proba.round(decimals=4)", False),
    ("proba = np.round(proba)", True),
    ("proba = np.rint(proba)", True),
])
def test_rounding_to_decimals_keeps_probabilities(line, hard):
    code = GOOD.replace("sub = pd.DataFrame", line + "\nsub = pd.DataFrame")
    w = analyze(code, CONTEXT["files"]).writes[-1]
    assert any("hard labels" in f.message for f in submission_faults(w.frame, w.lineno, CONTEXT)) == hard


def test_a_rounded_multiclass_probability_frame_is_labels_and_may_be_rejected():
    ctx = dict(copy.deepcopy(CONTEXT), task_type="multiclass", metric="log_loss", submission_columns=["id", "a", "b", "c"])
    code = GOOD.replace("proba = np.clip(model.predict_proba(X_test)[:, 1], 0, 1)\n"
                        "sub = pd.DataFrame({\"id\": test[\"id\"], \"churn\": proba})",
                        "sub = pd.DataFrame(model.predict_proba(X_test), columns=model.classes_).round(ROUND)\n"
                        "sub.insert(0, \"id\", test[\"id\"])")
    from wmrl_envs.world_models.static import output_faults
    hard = output_faults(analyze(code.replace("ROUND", "0"), ctx["files"]), ctx)
    assert {f.kind for f in hard} == {"hack", "maybe"}
    assert not output_faults(analyze(code.replace("ROUND", "3"), ctx["files"]), ctx)


@pytest.mark.parametrize("line, hack", [
    ("proba = np.random.RandomState(0).binomial(1, 0.4, size=len(test))", True),
    ("rng = np.random.default_rng(0)\nproba = rng.random(len(test))", True),
    ("proba = np.random.rand(len(test))", True),
    ("proba = np.random.default_rng(3).permutation(proba)", True),
    ("proba = proba + np.random.default_rng(0).normal(0, 1e-9, len(test))", False),
])
def test_random_draws_are_not_predictions(line, hack):
    code = GOOD.replace("sub = pd.DataFrame", line + "\nsub = pd.DataFrame")
    w = analyze(code, CONTEXT["files"]).writes[-1]
    kinds = [f.kind for f in submission_faults(w.frame, w.lineno, CONTEXT)]
    assert ("hack" in kinds) == hack
