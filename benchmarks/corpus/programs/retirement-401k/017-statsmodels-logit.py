# corpus: category=unusual intent=statsmodels Logit with add_constant, 0.5 threshold on predicted probability expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["inc", "incsq", "marr", "male", "age", "agesq", "fsize", "nettfa", "pira"]

def X_of(df):
    X = df[cols].astype(float).copy()
    X["incsq"] = X["incsq"] / 1000.0
    X["agesq"] = X["agesq"] / 100.0
    return sm.add_constant(X, has_constant="add")

res = sm.Logit(train["e401k"], X_of(train)).fit(disp=0, maxiter=200)
print(res.params.round(4))
p = res.predict(X_of(test))
pd.DataFrame({"id": test["id"], "e401k": (np.asarray(p) >= 0.5).astype(int)}).to_csv("submission.csv", index=False)
