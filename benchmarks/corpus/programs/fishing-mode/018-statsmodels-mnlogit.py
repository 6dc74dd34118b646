# corpus: category=unusual intent=statsmodels MNLogit with price differences and log income, columns from the category labels expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def X_of(df):
    X = pd.DataFrame({
        "log_income": np.log(df["income"]),
        "d_charter_boat": (df["pcharter"] - df["pboat"]) / 10,
        "d_boat_beach": (df["pboat"] - df["pbeach"]) / 10,
        "cboat": df["cboat"], "ccharter": df["ccharter"], "cbeach": df["cbeach"], "cpier": df["cpier"],
    })
    return sm.add_constant(X, has_constant="add")

cat = pd.Categorical(train["mode"], categories=["beach", "boat", "charter", "pier"])
res = sm.MNLogit(cat.codes, X_of(train)).fit(method="bfgs", maxiter=1000, disp=0)
P = np.asarray(res.predict(X_of(test)))
sub = pd.DataFrame(P, columns=list(cat.categories))
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
