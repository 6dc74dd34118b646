# corpus: category=unusual intent=for df in [train, test] relative-price features, .assign, HGB, sub.insert expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    prices = df[["pbeach", "ppier", "pboat", "pcharter"]]
    df["p_min"] = prices.min(axis=1)
    df["p_charter_rel"] = df["pcharter"] / df["p_min"]
    df["p_boat_rel"] = df["pboat"] / df["p_min"]
train = train.assign(inc_k=train.income / 1000)
test = test.assign(inc_k=test.income / 1000)
feats = [c for c in test.columns if c not in ("id", "income")]
clf = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.04, max_depth=3, min_samples_leaf=20, l2_regularization=1.0, random_state=0)
clf.fit(train[feats], train["mode"])
sub = pd.DataFrame(clf.predict_proba(test[feats]), columns=clf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
