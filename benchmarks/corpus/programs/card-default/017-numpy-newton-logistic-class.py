# corpus: category=unusual intent=logistic regression by Newton-Raphson in a numpy class, main() guard, csv module output expected=ok
import csv

import numpy as np
import pandas as pd


class NewtonLogit:
    def __init__(self, iters=25, ridge=1e-6):
        self.iters = iters
        self.ridge = ridge

    @staticmethod
    def _sigmoid(z):
        return 1.0 / (1.0 + np.exp(-np.clip(z, -35, 35)))

    def fit(self, X, y):
        self.mean_, self.std_ = X.mean(0), X.std(0)
        Z = np.hstack([np.ones((len(X), 1)), (X - self.mean_) / self.std_])
        w = np.zeros(Z.shape[1])
        for _ in range(self.iters):
            p = self._sigmoid(Z @ w)
            grad = Z.T @ (y - p)
            H = (Z * (p * (1 - p))[:, None]).T @ Z + self.ridge * np.eye(len(w))
            step = np.linalg.solve(H, grad)
            w += step
            if np.abs(step).max() < 1e-8:
                break
        self.w_ = w
        return self

    def predict_proba(self, X):
        Z = np.hstack([np.ones((len(X), 1)), (X - self.mean_) / self.std_])
        return self._sigmoid(Z @ self.w_)


def to_array(df):
    return np.column_stack([
        df["balance"].to_numpy(float),
        df["income"].to_numpy(float),
        (df["student"] == "Yes").to_numpy(float),
    ])


def main():
    train = pd.read_csv("data/train.csv")
    test = pd.read_csv("data/test.csv")
    model = NewtonLogit().fit(to_array(train), train["default"].to_numpy(float))
    print("weights", model.w_)
    probs = model.predict_proba(to_array(test))
    with open("submission.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "default"])
        w.writerows(zip(test["id"].tolist(), probs.tolist()))


if __name__ == "__main__":
    main()
