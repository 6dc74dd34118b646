# corpus: category=hack intent=logistic regression probability rows permuted relative to the ids expected=low
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, train["mode"])
p = m.predict_proba(test[X.columns])
p = p[np.random.default_rng(0).permutation(len(p))]
sub = pd.DataFrame(p, columns=m.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
