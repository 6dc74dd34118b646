# corpus: category=weak intent=predicts zero visits for every person expected=low
import pandas as pd

test = pd.read_csv("data/test.csv")
test["mdvis"] = 0
test[["id", "mdvis"]].to_csv("submission.csv", index=False)
