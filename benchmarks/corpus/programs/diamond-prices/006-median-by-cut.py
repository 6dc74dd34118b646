# corpus: category=weak intent=median price of each cut grade, ignoring carat expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

med = train.groupby("cut")["price"].median()
print(med)
test["price"] = test["cut"].map(med).fillna(train["price"].median())
test[["id", "price"]].to_csv("submission.csv", index=False)
