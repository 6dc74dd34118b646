# corpus: category=unusual intent=numpy least squares on log1p visits, expm1 back (approximates a conditional median) expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["lncoins", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp"]
A = np.c_[np.ones(len(train)), train[cols].to_numpy(float)]
At = np.c_[np.ones(len(test)), test[cols].to_numpy(float)]
w = np.linalg.lstsq(A, np.log1p(train["mdvis"].to_numpy(float)), rcond=None)[0]
pred = np.expm1(At @ w).clip(0)
pd.DataFrame({"id": test["id"], "mdvis": pred}).to_csv("submission.csv", index=False)
