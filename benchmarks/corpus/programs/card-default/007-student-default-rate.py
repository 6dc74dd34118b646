# corpus: category=weak intent=observed default rate of students vs non-students as the score expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

rates = train.groupby("student")["default"].mean()
print(rates)
sub = pd.DataFrame({"id": test["id"], "default": test["student"].map(rates).fillna(train["default"].mean())})
sub.to_csv("submission.csv", index=False)
