# corpus: category=unusual intent=least-absolute-deviation regression by IRLS in numpy, pathlib + main() + csv.writer expected=ok
import csv
from pathlib import Path

import numpy as np
import pandas as pd

DATA_DIR = Path("data")
CATEGORICAL = ["maritl", "race", "education", "jobclass", "health", "health_ins"]


def build_matrix(df, levels):
    blocks = [np.ones(len(df)), (df["age"] - 42) / 10, ((df["age"] - 42) / 10) ** 2, df["year"] - 2006]
    for col in CATEGORICAL:
        for lev in levels[col][1:]:
            blocks.append((df[col] == lev).astype(float))
    return np.column_stack([np.asarray(b, dtype=float) for b in blocks])


def irls_lad(X, y, iters=60, eps=1e-4):
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    for _ in range(iters):
        r = np.abs(y - X @ beta)
        w = 1.0 / np.maximum(r, eps)
        Xw = X * w[:, None]
        new = np.linalg.solve(X.T @ Xw + 1e-8 * np.eye(X.shape[1]), Xw.T @ y)
        if np.max(np.abs(new - beta)) < 1e-6:
            beta = new
            break
        beta = new
    return beta


def main():
    train = pd.read_csv(DATA_DIR / "train.csv")
    test = pd.read_csv(DATA_DIR / "test.csv")
    levels = {c: sorted(train[c].unique()) for c in CATEGORICAL}
    X, X_test = build_matrix(train, levels), build_matrix(test, levels)
    y = train["wage"].to_numpy(dtype=float)

    beta = irls_lad(X, y)
    print("train MAE", np.abs(y - X @ beta).mean())
    pred = X_test @ beta

    with open(Path.cwd() / "submission.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "wage"])
        for row_id, value in zip(test["id"], pred):
            out.writerow([row_id, round(float(value), 4)])


if __name__ == "__main__":
    main()
