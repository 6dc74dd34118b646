# corpus: category=strong intent=HistGradientBoosting on log1p(price) with ordered grade codes and volume/shape features, expm1 back expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

CUT = ["Fair", "Good", "Very Good", "Premium", "Ideal"]
COLOR = ["J", "I", "H", "G", "F", "E", "D"]
CLARITY = ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"]


def featurize(df):
    X = pd.DataFrame(index=df.index)
    X["carat"] = df["carat"]
    X["log_carat"] = np.log(df["carat"])
    X["cut"] = df["cut"].map({v: i for i, v in enumerate(CUT)})
    X["color"] = df["color"].map({v: i for i, v in enumerate(COLOR)})
    X["clarity"] = df["clarity"].map({v: i for i, v in enumerate(CLARITY)})
    X["depth"] = df["depth"]
    X["table"] = df["table"]
    for c in ["x", "y", "z"]:
        X[c] = df[c].where(df[c] > 0)
    X["volume"] = X["x"] * X["y"] * X["z"]
    X["density"] = df["carat"] / X["volume"]
    X["xy_ratio"] = X["x"] / X["y"]
    return X


X, X_test = featurize(train), featurize(test)
y = np.log1p(train["price"])

model = HistGradientBoostingRegressor(learning_rate=0.05, max_iter=600, max_leaf_nodes=31,
                                      min_samples_leaf=15, l2_regularization=0.5, random_state=0)
rmse = -cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0),
                        scoring="neg_root_mean_squared_error").mean()
print("CV RMSLE ~", round(rmse, 4))

model.fit(X, y)
pred = np.expm1(model.predict(X_test)).clip(min=0)
pd.DataFrame({"id": test["id"], "price": pred}).to_csv("submission.csv", index=False)
