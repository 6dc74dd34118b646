# corpus: category=unusual intent=numpy np.linalg.lstsq on a hand-built one-hot design for log wage expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
levels = {c: sorted(train[c].unique()) for c in ["ethnicity", "smsa", "region", "parttime"]}

def design(df):
    cols = [np.ones(len(df)), df["education"], df["experience"], df["experience"] ** 2 / 100.0]
    for c, lv in levels.items():
        for v in lv[1:]:
            cols.append((df[c] == v).astype(float))
    return np.column_stack(cols)

beta, *_ = np.linalg.lstsq(design(train), np.log1p(train["wage"].to_numpy()), rcond=None)
pred = np.expm1(design(test) @ beta)
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
print(beta.round(3))
