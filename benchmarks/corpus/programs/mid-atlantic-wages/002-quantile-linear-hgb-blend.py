# corpus: category=strong intent=median blend of an L1 linear QuantileRegressor (one-hot + age spline) and HGB absolute_error, weight from CV expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import QuantileRegressor
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, SplineTransformer, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]
feats = ["year", "age"] + cats
X, X_test, y = train[feats], test[feats], train["wage"].to_numpy()


def linear():
    pre = ColumnTransformer([
        ("age", SplineTransformer(n_knots=5, degree=3), ["age"]),
        ("year", StandardScaler(), ["year"]),
        ("cat", OneHotEncoder(drop="first", handle_unknown="ignore"), cats),
    ])
    return make_pipeline(pre, QuantileRegressor(quantile=0.5, alpha=0.0005, solver="highs"))


def boosted():
    pre = ColumnTransformer([("cat", OrdinalEncoder(), cats)], remainder="passthrough")
    return make_pipeline(pre, HistGradientBoostingRegressor(loss="absolute_error", learning_rate=0.05, max_iter=250,
                                                            max_leaf_nodes=10, min_samples_leaf=40, random_state=1))


oof = np.zeros((len(y), 2))
for tr, va in KFold(5, shuffle=True, random_state=42).split(X):
    oof[va, 0] = linear().fit(X.iloc[tr], y[tr]).predict(X.iloc[va])
    oof[va, 1] = boosted().fit(X.iloc[tr], y[tr]).predict(X.iloc[va])

weights = np.linspace(0, 1, 11)
maes = [np.abs(w * oof[:, 0] + (1 - w) * oof[:, 1] - y).mean() for w in weights]
w = weights[int(np.argmin(maes))]
print("linear weight", w, "cv mae", min(maes))

pred = w * linear().fit(X, y).predict(X_test) + (1 - w) * boosted().fit(X, y).predict(X_test)
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
