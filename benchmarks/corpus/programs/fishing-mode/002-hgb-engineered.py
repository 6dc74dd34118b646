# corpus: category=strong intent=regularised HistGradientBoosting with per-mode price/catch features expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
modes = ["beach", "pier", "boat", "charter"]
for df in (train, test):
    df["cheapest"] = df[[f"p{m}" for m in modes]].values.argmin(axis=1)
    df["best_catch"] = df[[f"c{m}" for m in modes]].values.argmax(axis=1)
    df["charter_premium"] = df["pcharter"] - df["pboat"]
    df["income_k"] = df["income"] / 1000
features = [c for c in test.columns if c != "id"]
clf = HistGradientBoostingClassifier(learning_rate=0.03, max_iter=250, max_depth=3, min_samples_leaf=25, l2_regularization=2.0, random_state=0)
clf.fit(train[features], train["mode"])
sub = pd.DataFrame(clf.predict_proba(test[features]), columns=clf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
