# corpus: category=bug intent=to_csv call left under `if False:` (was toggled off while debugging) expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
m = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=3000)).fit(X, train["target"])
sub = pd.DataFrame({"id": test["id"], "target": m.predict_proba(test[X.columns])[:, 1]})
print(sub.describe())
if False:
    sub.to_csv("submission.csv", index=False)
