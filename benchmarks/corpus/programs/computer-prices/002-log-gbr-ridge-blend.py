# corpus: category=strong intent=blend of gradient boosting and ridge with trend interactions, both on log price expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import RidgeCV
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def prep(df):
    X = pd.get_dummies(df.drop(columns=["id", "price"], errors="ignore"), columns=["cd", "multi", "premium"], drop_first=True, dtype=float)
    X["log_hd"] = np.log(X["hd"])
    X["log_ram"] = np.log(X["ram"])
    X["trend2"] = X["trend"] ** 2
    X["hd_trend"] = X["log_hd"] * X["trend"]
    X["ram_trend"] = X["log_ram"] * X["trend"]
    X["speed_trend"] = X["speed"] * X["trend"]
    return X

X, Xt = prep(train), prep(test)
Xt = Xt.reindex(columns=X.columns, fill_value=0)
y = np.log(train["price"])
sc = StandardScaler().fit(X)
ridge = RidgeCV(alphas=np.logspace(-3, 3, 25)).fit(sc.transform(X), y)
gbr = GradientBoostingRegressor(n_estimators=700, learning_rate=0.05, max_depth=5, subsample=0.8, random_state=0).fit(X, y)
pred = np.exp(0.3 * ridge.predict(sc.transform(Xt)) + 0.7 * gbr.predict(Xt))
pd.DataFrame({"id": test["id"], "price": pred}).to_csv("submission.csv", index=False)
