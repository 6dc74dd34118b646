# corpus: category=unusual intent=logistic regression by Newton iterations in numpy expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
med = train["age"].median()

def design(df):
    f = (df["sex"] == "female").to_numpy(float)
    c1 = (df["passengerClass"] == "1st").to_numpy(float)
    c3 = (df["passengerClass"] == "3rd").to_numpy(float)
    age = df["age"].fillna(med).to_numpy(float) / 10.0
    return np.column_stack([np.ones(len(df)), f, c1, c3, age, f * c3, f * c1])

X, T = design(train), design(test)
y = train["survived"].to_numpy(float)
w = np.zeros(X.shape[1])
for _ in range(25):
    p = 1 / (1 + np.exp(-X @ w))
    H = X.T @ (X * (p * (1 - p))[:, None]) + 1e-6 * np.eye(len(w))
    w += np.linalg.solve(H, X.T @ (y - p))
pred = (1 / (1 + np.exp(-T @ w)) > 0.5).astype(int)
pd.DataFrame({"id": test["id"], "survived": pred}).to_csv("submission.csv", index=False)
