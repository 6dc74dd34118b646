# corpus: category=unusual intent=random Fourier features plus one-vs-rest ridge solved by normal equations in numpy, csv writer and main() guard expected=ok
import csv

import numpy as np
import pandas as pd


def random_features(X, W, b):
    return np.sqrt(2.0 / W.shape[1]) * np.cos(X @ W + b)


def fit_ridge(F, Y, lam):
    G = F.T @ F + lam * np.eye(F.shape[1])
    return np.linalg.solve(G, F.T @ Y)


def main():
    train = pd.read_csv("data/train.csv")
    test = pd.read_csv("data/test.csv")
    cols = [c for c in test.columns if c != "id"]
    X = train[cols].to_numpy(float) / 16.0
    Xt = test[cols].to_numpy(float) / 16.0
    y = train["target"].to_numpy()

    rng = np.random.default_rng(0)
    gamma = 0.08
    W = rng.normal(scale=np.sqrt(2 * gamma), size=(X.shape[1], 1500))
    b = rng.uniform(0, 2 * np.pi, size=1500)
    F, Ft = random_features(X, W, b), random_features(Xt, W, b)

    Y = -np.ones((len(y), 10))
    Y[np.arange(len(y)), y] = 1.0
    beta = fit_ridge(F, Y, lam=1e-2)
    print("train acc", (np.argmax(F @ beta, axis=1) == y).mean())
    pred = np.argmax(Ft @ beta, axis=1)

    with open("submission.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "target"])
        writer.writerows(zip(test["id"].tolist(), pred.tolist()))


if __name__ == "__main__":
    main()
