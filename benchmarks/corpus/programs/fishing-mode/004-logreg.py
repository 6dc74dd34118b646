# corpus: category=typical intent=scaled multinomial logistic regression on the raw columns expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, train["mode"])
proba = lr.predict_proba(test[X.columns])
sub = pd.DataFrame({"id": test["id"]})
for i, c in enumerate(lr.classes_):
    sub[c] = proba[:, i]
sub.to_csv("submission.csv", index=False)
