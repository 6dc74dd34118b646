# corpus: category=unusual intent=ridge-like least squares in plain numpy on log price with one-hot design expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n = len(train)
full = pd.concat([train.drop(columns="Sale_Price"), test], ignore_index=True).drop(columns="id")
for c in ["Lot_Area", "Gr_Liv_Area", "Total_Bsmt_SF", "First_Flr_SF", "Garage_Area"]:
    full[c] = np.log1p(full[c])
full = pd.get_dummies(full, dtype=float).fillna(0.0)
A = full.to_numpy()
mu, sd = A[:n].mean(0), A[:n].std(0) + 1e-8
A = (A - mu) / sd
y = np.log1p(train["Sale_Price"].to_numpy())

lam = 30.0
X = A[:n]
w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ (y - y.mean()))
pred = np.expm1(A[n:] @ w + y.mean())
print("train rmse(log):", np.sqrt(np.mean((X @ w + y.mean() - y) ** 2)))
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
