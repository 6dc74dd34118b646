# corpus: category=weak intent=price regressed on RAM alone expected=low
import pandas as pd
from sklearn.linear_model import LinearRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
m = LinearRegression().fit(train[["ram"]], train["price"])
pd.DataFrame({"id": test["id"], "price": m.predict(test[["ram"]])}).to_csv("submission.csv", index=False)
