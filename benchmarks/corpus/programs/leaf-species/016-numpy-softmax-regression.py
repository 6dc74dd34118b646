# corpus: category=unusual intent=softmax regression trained by full-batch gradient descent with L2 in plain numpy on standardised features expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
classes = np.array(sample.columns[1:])

text = [c for c in test.columns if not pd.api.types.is_numeric_dtype(test[c])]
both = pd.get_dummies(pd.concat([train.drop(columns=["species"]), test]), columns=text, dtype=float)
both = both.drop(columns=["id"]).to_numpy(dtype=float)
mu, sd = both[: len(train)].mean(0), both[: len(train)].std(0)
sd[sd == 0] = 1.0
Z = (both - mu) / sd
Z = np.hstack([Z, np.ones((len(Z), 1))])
Xtr, Xte = Z[: len(train)], Z[len(train):]

lookup = {c: i for i, c in enumerate(classes)}
Y = np.zeros((len(train), len(classes)))
Y[np.arange(len(train)), train["species"].map(lookup).to_numpy()] = 1.0


def softmax(S):
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


W = np.zeros((Xtr.shape[1], len(classes)))
lam, lr = 1e-3, 0.5
m_t, v_t = np.zeros_like(W), np.zeros_like(W)
for t in range(1, 1501):
    G = Xtr.T @ (softmax(Xtr @ W) - Y) / len(Xtr) + lam * W
    m_t = 0.9 * m_t + 0.1 * G
    v_t = 0.999 * v_t + 0.001 * G * G
    W -= 0.01 * (m_t / (1 - 0.9 ** t)) / (np.sqrt(v_t / (1 - 0.999 ** t)) + 1e-8)
    if t % 500 == 0:
        P = softmax(Xtr @ W)
        print(t, "train nll", -np.mean(np.log(P[Y == 1] + 1e-12)))

P = softmax(Xte @ W)
sub = pd.DataFrame(P, columns=classes)
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
