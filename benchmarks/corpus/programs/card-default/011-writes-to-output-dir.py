# corpus: category=bug intent=good logistic model but the file is written to output/submission.csv, not the working directory expected=fail
import os

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def features(df):
    return pd.DataFrame({"balance": df.balance, "income": df.income, "student": (df.student == "Yes") * 1})

pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
pipe.fit(features(train), train["default"])

os.makedirs("output", exist_ok=True)
pd.DataFrame({"id": test["id"], "default": pipe.predict_proba(features(test))[:, 1]}).to_csv(
    os.path.join("output", "submission.csv"), index=False)
print("saved to output/submission.csv")
