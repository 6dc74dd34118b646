# corpus: category=unusual intent=distance-weighted 3-NN written out in numpy matrix algebra, saved with np.savetxt expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]

A = train[cols].to_numpy(dtype=np.float64)
B = test[cols].to_numpy(dtype=np.float64)
labels = train["target"].to_numpy()

d2 = np.einsum("ij,ij->i", B, B)[:, None] + np.einsum("ij,ij->i", A, A)[None, :] - 2.0 * B @ A.T
nearest = np.argpartition(d2, 3, axis=1)[:, :3]
votes = np.zeros((len(B), 10))
for j in range(3):
    idx = nearest[:, j]
    w = 1.0 / (np.sqrt(np.maximum(d2[np.arange(len(B)), idx], 0)) + 1e-6)
    np.add.at(votes, (np.arange(len(B)), labels[idx]), w)
pred = votes.argmax(axis=1)

np.savetxt("submission.csv", np.column_stack([test["id"].to_numpy(), pred]), fmt="%d",
           delimiter=",", header="id,target", comments="")
