# corpus: category=unusual intent=hand-built design matrix (log carat polynomial, grade dummies) solved with np.linalg.lstsq, written with np.savetxt expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

LEVELS = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": ["D", "E", "F", "G", "H", "I", "J"],
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}


def design(df):
    lc = np.log(df["carat"].to_numpy())
    blocks = [np.ones_like(lc), lc, lc ** 2, lc ** 3,
              (df["depth"].to_numpy() - 61.8) / 1.5, (df["table"].to_numpy() - 57.5) / 2.2]
    for col, lv in LEVELS.items():
        vals = df[col].to_numpy()
        blocks += [(vals == level).astype(float) for level in lv[1:]]
    return np.column_stack(blocks)


A = design(train)
b = np.log(train["price"].to_numpy())
coef, *_ = np.linalg.lstsq(A, b, rcond=None)
resid = b - A @ coef
print("in-sample RMSE (log):", np.sqrt(np.mean(resid ** 2)))

pred = np.exp(design(test) @ coef)
out = np.column_stack([test["id"].to_numpy(), pred])
np.savetxt("submission.csv", out, delimiter=",", header="id,price", comments="", fmt=["%d", "%.2f"])
