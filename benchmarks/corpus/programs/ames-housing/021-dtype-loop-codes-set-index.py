# corpus: category=unusual intent=df[c].dtype loop turning text to shared category codes, HGB on log price, id index written by to_csv() expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv", index_col="id")
test = pd.read_csv("data/test.csv", index_col="id")
target = train.pop("Sale_Price")

for c in test.columns:
    if train[c].dtype.kind not in "biuf":
        levels = sorted(set(train[c].dropna()) | set(test[c].dropna()))
        train[c] = pd.Categorical(train[c], categories=levels).codes
        test[c] = pd.Categorical(test[c], categories=levels).codes

reg = HistGradientBoostingRegressor(max_iter=500, learning_rate=0.05, min_samples_leaf=10, random_state=0)
reg.fit(train, np.log1p(target))
test["Sale_Price"] = np.expm1(reg.predict(test[train.columns]))
test[["Sale_Price"]].to_csv("submission.csv")
