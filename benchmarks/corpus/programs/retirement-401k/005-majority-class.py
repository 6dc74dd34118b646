# corpus: category=weak intent=predicts the majority class for every row expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
majority = int(train["e401k"].mode()[0])
pd.DataFrame({"id": test["id"], "e401k": majority}).to_csv("submission.csv", index=False)
