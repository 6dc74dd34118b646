# corpus: category=weak intent=predicts that no passenger survived expected=low
import pandas as pd

test = pd.read_csv("data/test.csv")
pd.DataFrame({"id": test["id"], "survived": 0}).to_csv("submission.csv", index=False)
