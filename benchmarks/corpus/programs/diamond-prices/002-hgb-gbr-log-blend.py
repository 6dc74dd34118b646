# corpus: category=strong intent=average in log space of HistGradientBoosting and subsampled GradientBoosting, both on log price expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

order = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": list("JIHGFED"),
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}

def prep(df):
    out = df.drop(columns=["id", "price"], errors="ignore").copy()
    for col, levels in order.items():
        out[col] = pd.Categorical(out[col], categories=levels, ordered=True).codes
    dims = out[["x", "y", "z"]].replace(0, np.nan)
    out["mean_diam"] = (dims["x"] + dims["y"]) / 2
    out["vol"] = dims.prod(axis=1, min_count=3)
    out["lcarat"] = np.log(out["carat"])
    out["grade"] = out["color"] + out["clarity"]
    return out

X, Xt = prep(train), prep(test)
y = np.log1p(train["price"].to_numpy())

hgb = HistGradientBoostingRegressor(learning_rate=0.06, max_iter=500, max_leaf_nodes=24, min_samples_leaf=12, random_state=0)
gbr = GradientBoostingRegressor(n_estimators=400, learning_rate=0.05, max_depth=4, subsample=0.8, random_state=0)
Xg, Xtg = X.fillna(X.median()), Xt.fillna(X.median())

Xa, Xb, ya, yb = train_test_split(np.arange(len(X)), y, test_size=0.2, random_state=1)
ph = hgb.fit(X.iloc[Xa], ya).predict(X.iloc[Xb])
pg = gbr.fit(Xg.iloc[Xa], ya).predict(Xg.iloc[Xb])
for name, p in [("hgb", ph), ("gbr", pg), ("blend", (ph + pg) / 2)]:
    print(name, np.sqrt(mean_squared_error(yb, p)))

hgb.fit(X, y)
gbr.fit(Xg, y)
log_pred = 0.5 * hgb.predict(Xt) + 0.5 * gbr.predict(Xtg)
pd.DataFrame({"id": test["id"], "price": np.expm1(log_pred)}).to_csv("submission.csv", index=False)
