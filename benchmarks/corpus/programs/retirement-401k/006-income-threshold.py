# corpus: category=weak intent=single income threshold rule chosen on train accuracy expected=low
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
best_t, best_acc = None, 0
for t in np.arange(10, 100, 2.5):
    acc = ((train["inc"] > t).astype(int) == train["e401k"]).mean()
    if acc > best_acc:
        best_t, best_acc = t, acc
print("threshold", best_t, "acc", best_acc)
pd.DataFrame({"id": test["id"], "e401k": (test["inc"] > best_t).astype(int)}).to_csv("submission.csv", index=False)
