# corpus: category=unusual intent=for df in [train, test] ratio features, .assign of logs, scaled logistic regression, sub.insert expected=ok
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    df["compact_ratio"] = df["worst compactness"] / df["mean compactness"]
    df["radius_growth"] = df["worst radius"] / df["mean radius"]
train = train.assign(**{"log worst area": np.log(train["worst area"])})
test = test.assign(**{"log worst area": np.log(test["worst area"])})
feats = [c for c in test.columns if c != "id"]
clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.2, max_iter=5000)).fit(train[feats], train["target"])
sub = pd.DataFrame({"target": clf.predict_proba(test[feats])[:, 1]})
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
