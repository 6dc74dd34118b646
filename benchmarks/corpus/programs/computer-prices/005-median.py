# corpus: category=weak intent=median price for every computer expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
pd.DataFrame({"id": test["id"], "price": train["price"].median()}).to_csv("submission.csv", index=False)
