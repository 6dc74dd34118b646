# corpus: category=strong intent=HistGradientBoosting with water/cement ratio, binder totals and log age expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def add(df):
    X = df.drop(columns=["id", "compressive_strength"], errors="ignore").copy()
    binder = X["cement"] + X["blast_furnace_slag"] + X["fly_ash"]
    X["w_c"] = X["water"] / X["cement"]
    X["w_b"] = X["water"] / binder
    X["binder"] = binder
    X["log_age"] = np.log(X["age"])
    X["sp_b"] = X["superplasticizer"] / binder
    X["agg_ratio"] = X["coarse_aggregate"] / X["fine_aggregate"]
    return X

X, Xt = add(train), add(test)
y = train["compressive_strength"]
model = HistGradientBoostingRegressor(learning_rate=0.05, max_iter=800, max_leaf_nodes=15, min_samples_leaf=5, l2_regularization=0.1, random_state=0)
print("CV R2:", cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0), scoring="r2").mean())
model.fit(X, y)
pd.DataFrame({"id": test["id"], "compressive_strength": model.predict(Xt)}).to_csv("submission.csv", index=False)
