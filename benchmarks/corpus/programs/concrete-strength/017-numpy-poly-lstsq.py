# corpus: category=unusual intent=quadratic polynomial least squares in numpy on log age and mixture ratios expected=ok
import numpy as np
import pandas as pd
from itertools import combinations_with_replacement

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def base(df):
    binder = df["cement"] + df["blast_furnace_slag"] + df["fly_ash"]
    return np.column_stack([np.log(df["age"]), df["water"] / binder, df["cement"], df["blast_furnace_slag"],
                            df["fly_ash"], df["superplasticizer"], df["coarse_aggregate"], df["fine_aggregate"]])

B, Bt = base(train), base(test)
mu, sd = B.mean(0), B.std(0)
B, Bt = (B - mu) / sd, (Bt - mu) / sd

def poly(M):
    cols = [np.ones(len(M))] + [M[:, i] for i in range(M.shape[1])]
    cols += [M[:, i] * M[:, j] for i, j in combinations_with_replacement(range(M.shape[1]), 2)]
    return np.column_stack(cols)

P, Pt = poly(B), poly(Bt)
y = train["compressive_strength"].to_numpy()
w = np.linalg.solve(P.T @ P + 1.0 * np.eye(P.shape[1]), P.T @ y)
print("train R2", 1 - np.sum((P @ w - y) ** 2) / np.sum((y - y.mean()) ** 2))
pd.DataFrame({"id": test["id"], "compressive_strength": Pt @ w}).to_csv("submission.csv", index=False)
