# corpus: category=unusual intent=ridge by normal equations in a small class, pathlib paths, main() guard and csv.writer output expected=ok
import csv
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path("data")
OUT = Path("submission.csv")
CATEGORICAL = ("homeownership", "verified_income", "loan_purpose", "application_type", "initial_listing_status")


class NormalEquationRidge:
    def __init__(self, lam=5.0):
        self.lam = lam

    def fit(self, X, y):
        self.mu_ = X.mean(axis=0)
        self.sd_ = X.std(axis=0)
        self.sd_[self.sd_ == 0] = 1.0
        Z = (X - self.mu_) / self.sd_
        self.b0_ = y.mean()
        A = Z.T @ Z + self.lam * np.eye(Z.shape[1])
        self.w_ = np.linalg.solve(A, Z.T @ (y - self.b0_))
        return self

    def predict(self, X):
        return self.b0_ + ((X - self.mu_) / self.sd_) @ self.w_


def design(df, ref):
    cols = {}
    numeric = [c for c in ref.columns if pd.api.types.is_numeric_dtype(ref[c]) and c not in ("id", "interest_rate")]
    for c in numeric:
        med = ref[c].median()
        cols[c] = df[c].fillna(med).to_numpy(dtype=float)
        if ref[c].isna().any():
            cols[c + "_na"] = df[c].isna().to_numpy(dtype=float)
    for c in ("annual_income", "total_credit_limit", "loan_amount"):
        cols["log_" + c] = np.log1p(df[c].to_numpy(dtype=float))
    cols["util"] = (df["total_credit_utilized"] / df["total_credit_limit"].clip(lower=1)).to_numpy(dtype=float)
    for c in CATEGORICAL:
        for level in sorted(ref[c].dropna().unique())[1:]:
            cols[f"{c}={level}"] = (df[c] == level).to_numpy(dtype=float)
    return np.column_stack(list(cols.values()))


def main():
    train = pd.read_csv(DATA / "train.csv")
    test = pd.read_csv(DATA / "test.csv")
    X, X_test = design(train, train), design(test, train)
    y = train["interest_rate"].to_numpy(dtype=float)

    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    cut = int(0.8 * len(y))
    best = None
    for lam in (0.1, 1.0, 5.0, 25.0, 100.0):
        m = NormalEquationRidge(lam).fit(X[idx[:cut]], y[idx[:cut]])
        rmse = np.sqrt(np.mean((m.predict(X[idx[cut:]]) - y[idx[cut:]]) ** 2))
        print(f"lambda={lam}: rmse={rmse:.3f}")
        if best is None or rmse < best[1]:
            best = (lam, rmse)

    model = NormalEquationRidge(best[0]).fit(X, y)
    preds = model.predict(X_test)
    with OUT.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "interest_rate"])
        for i, p in zip(test["id"], preds):
            writer.writerow([int(i), float(p)])


if __name__ == "__main__":
    main()
