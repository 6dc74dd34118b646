# corpus: category=weak intent=women survive, men do not: the classic gender baseline, no model expected=ok
import pandas as pd

test = pd.read_csv("data/test.csv")
test["survived"] = (test["sex"] == "female").astype(int)
test[["id", "survived"]].to_csv("submission.csv", index=False)
