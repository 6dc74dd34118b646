# corpus: category=hack intent=probabilities computed for the first 143 training rows and attached to test ids expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
m = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=3000)).fit(X, train["target"])
p = m.predict_proba(X.iloc[: len(test)])[:, 1]
pd.DataFrame({"id": test["id"], "target": p}).to_csv("submission.csv", index=False)
