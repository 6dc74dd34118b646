"""Grading real submissions of built tasks: scores match the metric, bad files get clear messages."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from wmrl_envs.mle.grading import InvalidSubmission


def _csv(df: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue().encode()


def _answers(task) -> pd.DataFrame:
    return pd.read_csv(task.answers_path)


def test_binary_auc_matches_sklearn_after_shuffling_rows(offline_tasks):
    task = offline_tasks["telco-churn"]
    truth = _answers(task)
    rng = np.random.default_rng(0)
    sub = truth.assign(churn=rng.random(len(truth))).sample(frac=1.0, random_state=1)
    expected = roc_auc_score(truth["churn"], sub.set_index("id").loc[truth["id"], "churn"])
    assert task.grade(_csv(sub)) == pytest.approx(expected, abs=1e-12)


def test_multiclass_log_loss_rescales_rows_like_kaggle(offline_tasks):
    task = offline_tasks["penguins"]
    truth = _answers(task)
    classes = ["Adelie", "Chinstrap", "Gentoo"]
    rng = np.random.default_rng(0)
    raw = rng.random((len(truth), 3)) + 0.1
    sub = pd.DataFrame(raw * 3.0, columns=classes).assign(id=truth["id"])[["id", *classes]]
    expected = log_loss(
        truth[classes].to_numpy().argmax(axis=1), raw / raw.sum(axis=1, keepdims=True)
    )
    assert task.grade(_csv(sub)) == pytest.approx(expected, abs=1e-12)


def test_ids_written_as_floats_still_match(offline_tasks):
    task = offline_tasks["telco-churn"]
    truth = _answers(task)
    sub = truth.assign(id=truth["id"].astype(float))
    assert task.grade(_csv(sub)) == pytest.approx(1.0)


def test_perfect_and_sample_scores(offline_tasks, dsbench_tasks):
    for task in (
        offline_tasks["cps-wages"],
        offline_tasks["hpc-jobs"],
        dsbench_tasks["fishing-mode"],
    ):
        assert task.metric.better(task.perfect_score, task.baseline_score)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda df: df.rename(columns={"churn": "Churn"}), "wrong columns"),
        (lambda df: df.assign(extra=1), "unexpected"),
        (lambda df: df.iloc[:-3], "wrong row count: expected 1625"),
        (lambda df: df.assign(churn=np.where(np.arange(len(df)) < 4, np.nan, 0.5)), "4 prediction"),
        (lambda df: df.assign(churn="high"), "not numbers"),
        (lambda df: df.assign(id=df["id"] + 100000), "ids do not match"),
        (lambda df: df.assign(id=np.r_[df["id"].iloc[1], df["id"].iloc[1:]]), "duplicated id"),
    ],
)
def test_broken_submissions_explain_themselves(offline_tasks, mutate, message):
    task = offline_tasks["telco-churn"]
    good = _answers(task).assign(churn=0.5)
    with pytest.raises(InvalidSubmission, match=message):
        task.grade(_csv(mutate(good)))


def test_index_column_gets_a_hint(offline_tasks):
    task = offline_tasks["telco-churn"]
    buf = io.StringIO()
    _answers(task).to_csv(buf)  # index=True: an unnamed first column
    with pytest.raises(InvalidSubmission, match="index=False"):
        task.grade(buf.getvalue().encode())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "no submission.csv was written"),
        (b"", "is empty"),
        (b"\xff\xfe\x00garbage\x00\x81", "not a valid UTF-8 CSV"),
        (b"id,churn\n" + b"1,0.5\n" * 2_000_000, "over the"),
    ],
)
def test_missing_empty_binary_and_huge_files(offline_tasks, data, message):
    with pytest.raises(InvalidSubmission, match=message):
        offline_tasks["telco-churn"].grade(data)


def test_rmsle_refuses_negative_predictions(offline_tasks):
    task = offline_tasks["cps-wages"]
    sub = _answers(task).assign(wage=-1.0)
    with pytest.raises(InvalidSubmission, match="negative"):
        task.grade(_csv(sub))


def test_labels_compare_as_text(offline_tasks):
    task = offline_tasks["hpc-jobs"]
    truth = _answers(task)
    assert task.grade(_csv(truth)) == pytest.approx(1.0)
    wrong = truth.assign(**{"class": "XX"})
    assert task.grade(_csv(wrong)) == pytest.approx(0.0)
