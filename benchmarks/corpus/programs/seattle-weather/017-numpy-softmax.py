# corpus: category=unusual intent=softmax regression written in numpy with full-batch gradient descent expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def design(df):
    d = pd.to_datetime(df["date"])
    cols = [df["precipitation"], np.log1p(df["precipitation"]), df["temp_max"], df["temp_min"], df["wind"],
            np.sin(2 * np.pi * d.dt.dayofyear / 365.25), np.cos(2 * np.pi * d.dt.dayofyear / 365.25), d.dt.year - 2012]
    return np.column_stack(cols).astype(float)

X, Xt = design(train), design(test)
mu, sd = X.mean(0), X.std(0)
X = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
Xt = np.hstack([np.ones((len(Xt), 1)), (Xt - mu) / sd])
classes = np.array(sorted(train["weather"].unique()))
Y = (train["weather"].to_numpy()[:, None] == classes[None, :]).astype(float)

def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)

W = np.zeros((X.shape[1], len(classes)))
for step in range(3000):
    P = softmax(X @ W)
    W -= 0.3 * (X.T @ (P - Y) / len(X) + 1e-3 * W)
print("train log loss", -np.mean(np.log((P * Y).sum(1) + 1e-15)))

sub = pd.DataFrame(softmax(Xt @ W), columns=classes)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
