# corpus: category=unusual intent=numpy softmax regression trained by gradient descent on imputed, standardised measurements expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
med = train[cols].median()
islands = sorted(train["island"].unique())

def design(df):
    num = df[cols].fillna(med).to_numpy(float)
    isl = np.column_stack([(df["island"] == v).to_numpy(float) for v in islands])
    return num, isl

Xn, Xi = design(train)
Tn, Ti = design(test)
mu, sd = Xn.mean(0), Xn.std(0)
X = np.hstack([np.ones((len(Xn), 1)), (Xn - mu) / sd, Xi])
T = np.hstack([np.ones((len(Tn), 1)), (Tn - mu) / sd, Ti])
classes = sorted(train["species"].unique())
Y = np.stack([(train["species"] == c).to_numpy(float) for c in classes], axis=1)

def softmax(Z):
    Z = Z - Z.max(1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(1, keepdims=True)

W = np.zeros((X.shape[1], len(classes)))
for _ in range(4000):
    W -= 0.5 * (X.T @ (softmax(X @ W) - Y) / len(X) + 1e-2 * W)
P = softmax(T @ W)
sub = pd.DataFrame(P, columns=classes)
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
