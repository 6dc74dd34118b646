# corpus: category=weak intent=mean interest rate per loan term as the prediction expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

rate_by_term = train.groupby("term")["interest_rate"].mean()
print(rate_by_term)
pred = test["term"].map(rate_by_term).fillna(train["interest_rate"].mean())
pd.DataFrame({"id": test["id"], "interest_rate": pred}).to_csv("submission.csv", index=False)
