# corpus: category=weak intent=straight line of price on carat alone, floored at the cheapest training price expected=low
import numpy as np
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

slope, intercept = np.polyfit(train["carat"], train["price"], 1)
print(f"price = {slope:.1f} * carat + {intercept:.1f}")
pred = np.maximum(slope * test["carat"] + intercept, train["price"].min())
pd.DataFrame({"id": test["id"], "price": pred}).to_csv("submission.csv", index=False)
