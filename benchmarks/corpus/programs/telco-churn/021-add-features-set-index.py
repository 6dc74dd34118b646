# corpus: category=unusual intent=in-place add_features helper, id as index written with to_csv(), docstring mentions test_answer.csv expected=ok
"""Churn model.

The grader compares submission.csv with a hidden test_answer.csv that we never see;
we only need one probability per test id.
"""
import pandas as pd
from sklearn.ensemble import RandomForestClassifier


def add_features(df):
    df["total_charges"] = df["total_charges"].fillna(0)
    df["tenure_years"] = df["tenure"] / 12
    df["is_m2m"] = df["contract"].eq("Month-to-month").astype(int)
    df["no_support"] = df["tech_support"].eq("No").astype(int)
    for col in list(df.columns):
        if df[col].dtype.kind == "O" or str(df[col].dtype) == "str":
            df[col] = df[col].astype("category").cat.codes


train = pd.read_csv("data/train.csv").set_index("id")
test = pd.read_csv("data/test.csv").set_index("id")
add_features(train)
add_features(test)

y = train.pop("churn")
rf = RandomForestClassifier(n_estimators=400, min_samples_leaf=8, max_features=0.4, random_state=3)
rf.fit(train, y)
out = pd.DataFrame({"churn": rf.predict_proba(test[train.columns])[:, 1]}, index=test.index)
out.to_csv("submission.csv")
