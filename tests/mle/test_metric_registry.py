"""The shipped MLE-Dojo registry: complete, valid, consistent, and usable to grade frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wmrl_envs.mle.metrics import get_metric
from wmrl_envs.mle.registry import REGISTRY_PATH, load_registry, metric_for

REGISTRY = load_registry()
GRADABLE = {name: e for name, e in REGISTRY.items() if e.gradable}


def test_every_mledojo_competition_has_an_entry():
    assert len(REGISTRY) == 202
    assert {"spaceship-titanic", "icr-identify-age-related-conditions", "AI4Code"} <= set(REGISTRY)
    assert "667a8fd0e959eb47f140ce7e621f831fdb55e5dd" in REGISTRY_PATH.read_text()[:400]


def test_every_metric_resolves_and_directions_agree():
    overrides = [
        name
        for name, e in GRADABLE.items()
        if get_metric(e.metric).higher_is_better != e.higher_is_better
    ]
    assert overrides == []  # no MLE-Dojo class overrides its metric's own direction
    for name in GRADABLE:
        metric = metric_for(name)
        assert metric.higher_is_better == REGISTRY[name].higher_is_better


def test_tabular_and_text_competitions_are_all_gradable():
    missing = [n for n, e in REGISTRY.items() if e.kind in ("tabular", "text") and not e.gradable]
    assert missing == []


def test_competitions_that_cannot_be_graded_report_name_and_reason():
    for name, entry in REGISTRY.items():
        if not entry.gradable:
            assert metric_for(name) == f"{name}: {entry.reason}"
    assert metric_for("no-such-competition").startswith("no-such-competition: not an MLE-Dojo")


def test_icr_scores_class_answers_against_per_class_probabilities():
    answers = pd.DataFrame({"Id": [f"id{i}" for i in range(6)], "Class": [0, 0, 1, 0, 1, 1]})
    p1 = np.array([0.2, 0.4, 0.7, 0.1, 0.9, 0.6])
    sub = pd.DataFrame({"Id": answers["Id"], "class_0": 2 * (1 - p1), "class_1": 2 * p1})
    y = answers["Class"].to_numpy()
    expected = (-np.log(1 - p1[y == 0]).mean() - np.log(p1[y == 1]).mean()) / 2
    entry = REGISTRY["icr-identify-age-related-conditions"]
    assert entry.score(answers, sub.sample(frac=1.0, random_state=0)) == pytest.approx(expected)


def test_ranked_submission_rows_are_joined_per_id():
    answers = pd.DataFrame({"id": ["u1", "u2", "u3"], "country": ["FR", "US", "NDF"]})
    sub = pd.DataFrame(
        {"id": ["u2", "u1", "u1", "u2", "u3"], "country": ["NDF", "US", "FR", "US", "IT"]}
    )
    expected = (1 / np.log2(3) + 1 / np.log2(3) + 0) / 3
    assert REGISTRY["airbnb-recruiting-new-user-bookings"].score(answers, sub) == pytest.approx(
        expected
    )


def test_ranked_submission_is_checked_as_mledojo_checks_it():
    """At most k=5 rows per id, only the test ids, no extra column; a blank row keeps its place
    and matches nothing."""
    entry = REGISTRY["airbnb-recruiting-new-user-bookings"]
    answers = pd.DataFrame({"id": ["u1", "u2"], "country": ["FR", "US"]})
    sub = pd.DataFrame({"id": ["u1", "u1", "u2"], "country": [None, "FR", "US"]})
    assert entry.score(answers, sub) == pytest.approx((1 / np.log2(3) + 1) / 2)
    six = pd.DataFrame({"id": ["u1"] * 6 + ["u2"], "country": ["IT"] * 5 + ["FR", "US"]})
    with pytest.raises(ValueError, match="more than 5 rows"):
        entry.score(answers, six)
    with pytest.raises(ValueError, match="1 unknown"):
        entry.score(answers, pd.concat([sub, pd.DataFrame({"id": ["u9"], "country": ["US"]})]))
    with pytest.raises(ValueError, match="Extra unexpected columns"):
        entry.score(answers, sub.assign(rank=1))


def test_id_by_name_finds_the_answers_first_column_wherever_the_submission_puts_it():
    entry = REGISTRY["rsna-miccai-brain-tumor-radiogenomic-classification"]
    answers = pd.DataFrame({"BraTS21ID": [1, 2, 3, 4], "MGMT_value": [0, 1, 0, 1]})
    last = pd.DataFrame({"MGMT_value": [0.9, 0.8, 0.1, 0.2], "BraTS21ID": [2, 4, 1, 3]})
    assert entry.score(answers, last) == 1.0
    with pytest.raises(ValueError, match="Missing required columns in submission: BraTS21ID"):
        entry.score(answers, last.rename(columns={"BraTS21ID": "id"}))


def test_unscored_columns_are_required_as_the_sample_has_them():
    """facial-keypoints' sample (and MLE-Dojo's class) has ImageId and FeatureName besides the
    scored Location: a submission like the sample is graded, one without them refused."""
    entry = REGISTRY["facial-keypoints-detection"]
    answers = pd.DataFrame(
        {"RowId": [1, 2, 3], "ImageId": [1, 1, 2], "FeatureName": ["a", "b", "a"], "Location": [10.0, 20.0, 30.0]}
    )
    sub = answers.assign(Location=[13.0, 20.0, 26.0])[["Location", "FeatureName", "ImageId", "RowId"]]
    assert entry.score(answers, sub) == pytest.approx(np.sqrt((9 + 16) / 3))
    with pytest.raises(ValueError, match="Missing required columns in submission: ImageId"):
        entry.score(answers, sub.drop(columns="ImageId"))


def test_row_filters_and_weight_columns():
    answers = pd.DataFrame({"seq_id": [1, 2, 3, 4], "tm": [50.0, np.nan, 40.0, 60.0]})
    sub = pd.DataFrame({"seq_id": [4, 3, 2, 1], "tm": [9.0, 1.0, -100.0, 5.0]})
    assert REGISTRY["novozymes-enzyme-stability-prediction"].score(answers, sub) == 1.0
    with pytest.raises(ValueError, match="seq_id values do not match"):  # as text, 4.0 is not 4
        REGISTRY["novozymes-enzyme-stability-prediction"].score(answers, sub.astype({"seq_id": float}))

    answers = pd.DataFrame(
        {"id": range(6), "prediction": [0, 1, 0, 1, 0, 1], "min_ANNmuon": [1, 1, 1, 1, 0.1, 0.1]}
    )
    sub = pd.DataFrame({"id": range(6), "prediction": [0.1, 0.9, 0.2, 0.8, 0.9, 0.0]})
    assert REGISTRY["flavours-of-physics-kernels-only"].score(answers, sub) == pytest.approx(1.0)

    labels = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    answers = pd.DataFrame(
        {"id": ["a", "b", "c", "d"], **{c: [0, 1, -1, 1 - (c == "threat")] for c in labels}}
    )
    sub = answers.assign(**{c: [0.1, 0.9, 0.99, 0.8 - 0.5 * (c == "threat")] for c in labels})
    entry = REGISTRY["jigsaw-toxic-comment-classification-challenge"]
    assert entry.score(answers, sub) == pytest.approx(1.0)  # the unscored -1 row is left out

    answers = pd.DataFrame(
        {
            "Id": ["1_1", "1_61", "2_1"],
            "Predicted": [1.0, 2.0, 3.0],
            "Weight_Intraday": [10.0, 0.0, 20.0],
            "Weight_Daily": [0.0, 5.0, 0.0],
        }
    )
    sub = pd.DataFrame({"Id": ["1_1", "1_61", "2_1"], "Predicted": [0.0, 0.0, 0.0]})
    expected = (10 * 1 + 5 * 2 + 20 * 3) / 3
    assert REGISTRY["the-winton-stock-market-challenge"].score(answers, sub) == pytest.approx(
        expected
    )


def test_missing_or_duplicated_submission_ids_are_errors():
    entry = REGISTRY["spaceship-titanic"]
    answers = pd.DataFrame({"PassengerId": ["a", "b"], "Transported": [True, False]})
    with pytest.raises(ValueError, match=r"Number of rows in submission \(1\)"):
        entry.score(answers, answers.iloc[:1])
    with pytest.raises(ValueError, match="1 repeated"):
        entry.score(answers, answers.assign(PassengerId=["a", "a"]))
    with pytest.raises(ValueError, match="Extra unexpected columns found in submission: x"):
        entry.score(answers, answers.assign(x=1))


# ---- every gradable entry grades its own answers as a perfect submission -----------------

N = 24
_I = np.arange(N)
_BINARY = ("roc_auc", "f1", "mean_columnwise_auc", "mean_columnwise_ap", "tpr_weighted_auc")
_LABELS = ("accuracy", "macro_f1", "micro_f1", "mcc", "qwk")
_TOKENS = {
    "map_at_k": lambda i: f"l{i % 4}",
    "ndcg_at_k": lambda i: f"l{i % 4}",
    "top1_error": lambda i: f"l{i % 4}",
    "samples_f1": lambda i: ["a b", "c", "b d e"][i % 3],
    "multilabel_micro_f1": lambda i: ["a b", "c", "b d e"][i % 3],
    "kendall_tau_order": lambda i: ["x y z", "z x y w"][i % 2],
    "mean_rowwise_spearman": lambda i: ["1 2 3", "3 1 2"][i % 2],
    "token_error_rate": lambda i: " ".join(map(str, range(i % 4 + 1))),
    "jaccard": lambda i: f"word{i} other",
    "levenshtein": lambda i: f"text {i}",
    "span_micro_f1": lambda i: f"{i} {i + 3}",
}
_PERFECT = {"log_loss": 0.0, "group_log_mae": np.log(1e-9), "kl_divergence": 0.0}


def _answer_column(metric: str, j: int, ncols: int) -> np.ndarray:
    if metric in _TOKENS:
        return np.array([_TOKENS[metric](i) for i in _I], dtype=object)
    if metric in _BINARY or metric == "jigsaw_bias_auc":
        return ((_I + j) % 2).astype(float)
    if metric in ("log_loss", "kl_divergence"):  # one-hot rows (already probabilities)
        return ((_I % ncols) == j).astype(float) if ncols > 1 else (_I % 2).astype(float)
    if metric in _LABELS:
        return (_I * (j + 1)) % 4
    if metric == "trip_haversine_p50_p95":
        return 37.0 + 0.01 * _I if j == 0 else -122.0 - 0.01 * _I
    return 1.0 + ((_I * (j + 3)) % 7) + 0.1 * j  # values, counts, angles


def _frames(entry) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = {0: ["row_id"]}.get(entry.id_column) or list(np.atleast_1d(entry.id_column))
    answers = {c: [f"{c}-{i % 2}-{i}" for i in _I] for c in ids}
    columns = entry.answer_columns or ("c0", "c1", "c2")
    for j, c in enumerate(columns):
        answers[c] = _answer_column(entry.metric, j, len(columns))
    for name, source in entry.extra_columns.items():
        for j, c in enumerate([source] if isinstance(source, str) else source):
            if c not in answers:
                answers[c] = {"weights": np.ones(N), "groups": _I % 3}.get(
                    name, (_I // 2) % 2 + 0.0 * j
                )
    for c in (*entry.keep_rows_above, *entry.unscored_columns):
        answers.setdefault(c, np.ones(N))
    answers = pd.DataFrame(answers)
    sub = answers[ids + list(columns) + list(entry.unscored_columns)]
    if entry.submission_columns:
        sub = sub.rename(columns=dict(zip(columns, entry.submission_columns)))
    return answers, sub.sample(frac=1.0, random_state=0)


@pytest.mark.parametrize(
    "name", [n for n, e in GRADABLE.items() if e.metric != "balanced_log_loss"]
)
def test_answers_score_as_a_perfect_submission(name):
    entry = REGISTRY[name]
    answers, sub = _frames(entry)
    metric = get_metric(entry.metric)
    perfect = _PERFECT.get(entry.metric, 1.0 if metric.higher_is_better else 0.0)
    assert entry.score(answers, sub) == pytest.approx(perfect, abs=1e-6)


# ---- validation at load ------------------------------------------------------------------

_GOOD = """\
demo:
  kind: tabular
  metric: rmse
  higher_is_better: false
  id_column: 0
  answer_columns: [y]
"""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("metric: rmse", "metric: rsme"), "demo: unknown metric 'rsme'"),
        (
            ("kind: tabular", "kind: tabular\n  colour: red"),
            r"demo: unknown field\(s\) \['colour'\]",
        ),
        (("kind: tabular", "kind: video"), "demo: kind 'video'"),
        (
            ("metric: rmse", "metric: map_at_k"),
            r"demo: metric map_at_k needs parameter\(s\) \['k'\]",
        ),
        (("metric: rmse", "metric: rmse\n  params: {k: 3}"), "demo: metric rmse has no parameter"),
        (("metric: rmse", "metric: weighted_mae"), "demo: metric weighted_mae needs extra_columns"),
        (("metric: rmse", "gradable: false"), "demo: a competition that is not gradable needs"),
        (("answer_columns: [y]", "answer_columns: y"), "demo: answer_columns must be"),
        (("  id_column: 0\n", ""), r"demo: missing field\(s\) \['id_column'\]"),
        (("id_column: 0", "id_column: 2"), "demo: id_column must be"),
        (("id_column: 0", "id_column: y\n  id_by_name: true"), "demo: id_by_name is True with id_column 'y'"),
    ],
)
def test_bad_entries_are_errors_naming_the_entry(tmp_path: Path, change, message):
    path = tmp_path / "registry.yaml"
    path.write_text(_GOOD.replace(*change))
    with pytest.raises(ValueError, match=message):
        load_registry(path)


def test_a_good_entry_loads(tmp_path: Path):
    path = tmp_path / "registry.yaml"
    path.write_text(_GOOD)
    (entry,) = load_registry(path).values()
    assert entry.name == "demo" and entry.resolve().name == "rmse"
