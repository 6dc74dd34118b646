# corpus: category=weak intent=simple regression on cement content alone expected=low
import pandas as pd
from sklearn.linear_model import LinearRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
m = LinearRegression().fit(train[["cement"]], train["compressive_strength"])
pd.DataFrame({"id": test["id"], "compressive_strength": m.predict(test[["cement"]])}).to_csv("submission.csv", index=False)
