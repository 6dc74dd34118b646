# corpus: category=weak intent=training median wage for every worker (the MAE-optimal constant) expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
med = train["wage"].median()
print("median wage", med)
pd.DataFrame({"id": test["id"], "wage": med}).to_csv("submission.csv", index=False)
