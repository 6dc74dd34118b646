# corpus: category=bug intent=writes a good submission and then fails an assert that no probability is extreme expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=3000)).fit(X, train["target"])
sub = pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[X.columns])[:, 1]})
sub.to_csv("submission.csv", index=False)
assert sub["target"].between(0.01, 0.99).all(), "overconfident predictions"
print("ok")
