# corpus: category=unusual intent=numpy softmax regression on standardised columns with log income expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["pbeach", "ppier", "pboat", "pcharter", "cbeach", "cpier", "cboat", "ccharter"]

def design(df):
    M = df[cols].to_numpy(float)
    return np.c_[M, np.log(df["income"].to_numpy(float)), M[:, 3] - M[:, 2], M[:, 7] - M[:, 6]]

A, B = design(train), design(test)
mu, sd = A.mean(0), A.std(0)
A = np.c_[np.ones(len(A)), (A - mu) / sd]
B = np.c_[np.ones(len(B)), (B - mu) / sd]
classes = np.array(["beach", "boat", "charter", "pier"])
Y = (train["mode"].to_numpy()[:, None] == classes).astype(float)

def softmax(Z):
    E = np.exp(Z - Z.max(1, keepdims=True))
    return E / E.sum(1, keepdims=True)

W = np.zeros((A.shape[1], 4))
for _ in range(3000):
    W -= 0.3 * (A.T @ (softmax(A @ W) - Y) / len(A) + 1e-3 * W)
sub = pd.DataFrame(softmax(B @ W), columns=classes)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
