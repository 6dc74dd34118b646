# corpus: category=unusual intent=logistic regression by Newton/IRLS in plain numpy wrapped in a class, written with the csv module expected=ok
import csv

import numpy as np
import pandas as pd


class NewtonLogit:
    """Ridge-penalised logistic regression solved by iteratively reweighted least squares."""

    def __init__(self, lam=1.0, n_iter=25):
        self.lam = lam
        self.n_iter = n_iter

    def fit(self, X, y):
        n, p = X.shape
        Xb = np.hstack([np.ones((n, 1)), X])
        w = np.zeros(p + 1)
        penalty = self.lam * np.eye(p + 1)
        penalty[0, 0] = 0.0
        for _ in range(self.n_iter):
            mu = 1.0 / (1.0 + np.exp(-Xb @ w))
            grad = Xb.T @ (mu - y) + penalty @ w
            hess = (Xb * (mu * (1 - mu))[:, None]).T @ Xb + penalty
            step = np.linalg.solve(hess, grad)
            w -= step
            if np.abs(step).max() < 1e-8:
                break
        self.w_ = w
        return self

    def predict_proba(self, X):
        return 1.0 / (1.0 + np.exp(-(self.w_[0] + X @ self.w_[1:])))


def design(df, ref):
    cols = {}
    for c in ["Seniority", "Time", "Age", "Expenses"]:
        cols[c] = df[c].astype(float)
    for c in ["Income", "Assets", "Debt", "Amount", "Price"]:
        v = df[c].astype(float)
        cols[c + "_log"] = np.log1p(v.fillna(ref[c].median()).clip(lower=0))
        cols[c + "_na"] = v.isna().astype(float)
    for c in ["Home", "Marital", "Records", "Job"]:
        for level in sorted(ref[c].dropna().unique())[1:]:
            cols[f"{c}={level}"] = (df[c] == level).astype(float)
    return pd.DataFrame(cols)


train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
A, B = design(train, train), design(test, train)
mu, sd = A.mean(), A.std().replace(0, 1)
A, B = ((A - mu) / sd).to_numpy(), ((B - mu) / sd).to_numpy()

model = NewtonLogit(lam=2.0).fit(A, train["Status"].to_numpy(float))
p = model.predict_proba(B)

with open("submission.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["id", "Status"])
    for i, s in zip(test["id"], p):
        w.writerow([int(i), f"{s:.6f}"])
