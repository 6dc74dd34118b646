# corpus: category=unusual intent=L2-regularised logistic regression by numpy gradient descent on standardised features expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = [c for c in train.columns if c not in ("id", "target")]
X, T = train[cols].to_numpy(float), test[cols].to_numpy(float)
mu, sd = X.mean(0), X.std(0)
X, T = (X - mu) / sd, (T - mu) / sd
X = np.c_[np.ones(len(X)), X]
T = np.c_[np.ones(len(T)), T]
y = train["target"].to_numpy(float)
w = np.zeros(X.shape[1])
for _ in range(3000):
    p = 1 / (1 + np.exp(-X @ w))
    w -= 0.1 * (X.T @ (p - y) / len(y) + 0.01 * np.r_[0, w[1:]])
pt = 1 / (1 + np.exp(-T @ w))
pd.DataFrame({"id": test["id"], "target": pt}).to_csv("submission.csv", index=False)
