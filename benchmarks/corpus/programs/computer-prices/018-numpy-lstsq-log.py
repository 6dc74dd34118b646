# corpus: category=unusual intent=numpy lstsq on log price with a hand-built design matrix expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def design(df):
    yes = lambda c: (df[c] == "yes").to_numpy(float)
    t = df["trend"].to_numpy(float)
    lhd, lram = np.log(df["hd"].to_numpy(float)), np.log(df["ram"].to_numpy(float))
    return np.column_stack([np.ones(len(df)), df["speed"], lhd, lram, df["screen"], yes("cd"), yes("multi"),
                            yes("premium"), df["ads"], t, t ** 2, lhd * t, lram * t])

beta = np.linalg.lstsq(design(train), np.log(train["price"].to_numpy(float)), rcond=None)[0]
pd.DataFrame({"id": test["id"], "price": np.exp(design(test) @ beta)}).to_csv("submission.csv", index=False)
