# corpus: category=weak intent=median wage per years of education expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
table = train.groupby("education")["wage"].median()
test["wage"] = test["education"].map(table).fillna(train["wage"].median())
test[["id", "wage"]].to_csv("submission.csv", index=False)
