# corpus: category=strong intent=log price target with HistGradientBoosting on binarised yes/no flags and CV check expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def prep(df):
    X = df.drop(columns=["id", "price"], errors="ignore").copy()
    for c in ["cd", "multi", "premium"]:
        X[c] = (X[c] == "yes").astype(int)
    X["log_hd"] = np.log(X["hd"])
    X["log_ram"] = np.log2(X["ram"])
    return X

X, Xt = prep(train), prep(test)
y = np.log1p(train["price"])
model = HistGradientBoostingRegressor(learning_rate=0.05, max_iter=600, max_leaf_nodes=31, min_samples_leaf=20, random_state=0)
print("CV RMSLE", -cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0), scoring="neg_root_mean_squared_error").mean())
model.fit(X, y)
pd.DataFrame({"id": test["id"], "price": np.expm1(model.predict(Xt))}).to_csv("submission.csv", index=False)
