# corpus: category=strong intent=GradientBoostingRegressor with many shallow trees and ratio features expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["wc_ratio"] = df["water"] / df["cement"]
    df["log_age"] = np.log1p(df["age"])
features = [c for c in test.columns if c != "id"]
gbr = GradientBoostingRegressor(n_estimators=1200, learning_rate=0.03, max_depth=4, subsample=0.8, min_samples_leaf=3, random_state=0)
gbr.fit(train[features], train["compressive_strength"])
pd.DataFrame({"id": test["id"], "compressive_strength": gbr.predict(test[features])}).to_csv("submission.csv", index=False)
