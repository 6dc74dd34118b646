# corpus: category=weak intent=logistic regression on income alone expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

m = LogisticRegression()
m.fit(train[["income"]] / 10000, train["default"])
pd.DataFrame({"id": test["id"], "default": m.predict_proba(test[["income"]] / 10000)[:, 1]}).to_csv("submission.csv", index=False)
