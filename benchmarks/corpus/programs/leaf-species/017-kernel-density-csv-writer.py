# corpus: category=unusual intent=class probabilities from Gaussian-kernel neighbour weights in numpy with a prior floor, written row by row with csv expected=ok
import csv

import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
with open("data/sample_submission.csv") as fh:
    header = next(csv.reader(fh))
classes = header[1:]

numeric = [c for c in test.columns if c != "id" and pd.api.types.is_float_dtype(test[c]) or pd.api.types.is_integer_dtype(test[c])]
numeric = [c for c in numeric if c != "id"]
A = train[numeric].to_numpy(float)
B = test[numeric].to_numpy(float)
mu, sd = A.mean(0), A.std(0) + 1e-9
A, B = (A - mu) / sd, (B - mu) / sd

onehot = np.zeros((len(train), len(classes)))
onehot[np.arange(len(train)), [classes.index(s) for s in train["species"]]] = 1.0
prior = onehot.mean(0)

d2 = (B ** 2).sum(1)[:, None] + (A ** 2).sum(1)[None, :] - 2 * B @ A.T
d2 = np.maximum(d2, 0)
bandwidth = np.median(np.sort(d2, axis=1)[:, 5])
K = np.exp(-d2 / bandwidth)
scores = K @ onehot
P = (scores + 0.05 * prior) / (scores.sum(1, keepdims=True) + 0.05)
P = 0.97 * P + 0.03 * prior

with open("submission.csv", "w", newline="") as fh:
    out = csv.writer(fh)
    out.writerow(header)
    for rid, row in zip(test["id"], P):
        out.writerow([rid] + [f"{p:.6g}" for p in row])
