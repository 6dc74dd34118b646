# corpus: category=weak intent=training share of benign tumours as a constant probability expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
pd.DataFrame({"id": test["id"], "target": train["target"].mean()}).to_csv("submission.csv", index=False)
