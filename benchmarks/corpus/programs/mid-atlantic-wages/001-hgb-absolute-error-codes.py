# corpus: category=strong intent=HGB with absolute_error loss on ordinal prefix codes, marital status and race as native categoricals, CV MAE check expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
CATS = ["maritl", "race", "education", "jobclass", "health", "health_ins"]


def codes(df):
    out = df[["year", "age"]].copy()
    for c in CATS:
        out[c] = df[c].str.split(".").str[0].astype(int)
    out["age_sq"] = out["age"] ** 2
    return out


X, X_test, y = codes(train), codes(test), train["wage"]
is_cat = [c in ("maritl", "race") for c in X.columns]
model = HistGradientBoostingRegressor(loss="absolute_error", learning_rate=0.04, max_iter=350, max_leaf_nodes=12,
                                      min_samples_leaf=30, categorical_features=is_cat, random_state=0)
mae = -cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0), scoring="neg_mean_absolute_error")
print("CV MAE %.2f (median baseline %.2f)" % (mae.mean(), np.abs(y - y.median()).mean()))

model.fit(X, y)
pd.DataFrame({"id": test["id"], "wage": model.predict(X_test)}).to_csv("submission.csv", index=False)
