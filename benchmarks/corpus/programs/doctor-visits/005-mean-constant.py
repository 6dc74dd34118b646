# corpus: category=weak intent=training mean number of visits for everyone expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
pd.DataFrame({"id": test["id"], "mdvis": train["mdvis"].mean()}).to_csv("submission.csv", index=False)
