# corpus: category=weak intent=median sale price per neighborhood, global median for unknown neighborhoods expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
med = train.groupby("Neighborhood")["Sale_Price"].median()
pred = test["Neighborhood"].map(med).fillna(train["Sale_Price"].median())
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
