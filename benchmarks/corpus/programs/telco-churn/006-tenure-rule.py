# corpus: category=weak intent=hand-written score from tenure and contract, no model expected=low
import pandas as pd

test = pd.read_csv("data/test.csv")
# short-tenure month-to-month customers churn the most
score = 1.0 / (1.0 + test["tenure"])
score = score + 0.5 * (test["contract"] == "Month-to-month")
pd.DataFrame({"id": test["id"], "churn": score}).to_csv("submission.csv", index=False)
print(score.describe())
