# corpus: category=unusual intent=linear probability model solved with numpy least squares, thresholded at 0.5 expected=ok
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["inc", "incsq", "marr", "male", "age", "agesq", "fsize", "nettfa", "pira"]
A = np.column_stack([np.ones(len(train)), train[cols].to_numpy(float)])
B = np.column_stack([np.ones(len(test)), test[cols].to_numpy(float)])
coef, *_ = np.linalg.lstsq(A, train["e401k"].to_numpy(float), rcond=None)
pred = (B @ coef > 0.5).astype(int)
print("train acc", ((A @ coef > 0.5).astype(int) == train["e401k"]).mean())
pd.DataFrame({"id": test["id"], "e401k": pred}).to_csv("submission.csv", index=False)
