# corpus: category=unusual intent=logistic regression implemented with numpy gradient descent on one-hot features expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n = len(train)
full = pd.concat([train.drop(columns="churn"), test], ignore_index=True)
full["total_charges"] = full["total_charges"].fillna(0.0)
full = pd.get_dummies(full.drop(columns="id"), dtype=float)
A = full.to_numpy()
A = (A - A[:n].mean(0)) / (A[:n].std(0) + 1e-9)
A = np.hstack([np.ones((len(A), 1)), A])
X, Xt = A[:n], A[n:]
y = train["churn"].to_numpy(dtype=float)

w = np.zeros(X.shape[1])
lr, lam = 0.1, 1e-3
for it in range(1500):
    p = 1.0 / (1.0 + np.exp(-X @ w))
    grad = X.T @ (p - y) / n + lam * w
    w -= lr * grad
    if it % 500 == 0:
        ll = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        print(it, round(ll, 4))

pt = 1.0 / (1.0 + np.exp(-Xt @ w))
pd.DataFrame({"id": test["id"], "churn": pt}).to_csv("submission.csv", index=False)
