"""A hand-made task context and a correct program for it."""

from __future__ import annotations

import copy

import pytest

CONTEXT = {
    "task_id": "toy-churn",
    "description": "Predict whether a customer churns.",
    "task_type": "binary",
    "metric": "roc_auc",
    "higher_is_better": True,
    "target": "churn",
    "id_column": "id",
    "files": {
        "train.csv": {
            "n_rows": 5000,
            "columns": {"id": "int64", "tenure": "int64", "monthly": "float64", "contract": "object", "churn": "int64"},
            "nan_fraction": {"monthly": 0.02},
        },
        "test.csv": {
            "n_rows": 2000,
            "columns": {"id": "int64", "tenure": "int64", "monthly": "float64", "contract": "object"},
            "nan_fraction": {"monthly": 0.01},
        },
        "sample_submission.csv": {"n_rows": 2000, "columns": {"id": "int64", "churn": "float64"}, "nan_fraction": {}},
    },
    "submission_columns": ["id", "churn"],
    "limits": {"wall_s": 120.0, "cpu_s": 120.0, "memory_mb": 4096.0},
    "max_turns": 1,
}

GOOD = '''\
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["tenure", "monthly", "contract"]
X = pd.get_dummies(train[features])
X_test = pd.get_dummies(test[features]).reindex(columns=X.columns, fill_value=0)
model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05)
model.fit(X, train["churn"])
proba = np.clip(model.predict_proba(X_test)[:, 1], 0, 1)
sub = pd.DataFrame({"id": test["id"], "churn": proba})
sub.to_csv("submission.csv", index=False)
'''


@pytest.fixture
def context() -> dict:
    return copy.deepcopy(CONTEXT)


@pytest.fixture
def good_code() -> str:
    return GOOD
