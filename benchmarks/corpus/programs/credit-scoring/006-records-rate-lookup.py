# corpus: category=weak intent=default rate by the Records flag only, used as the score expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

rate = train.groupby("Records")["Status"].mean()
print(rate)
overall = train["Status"].mean()

sub = pd.DataFrame({"id": test["id"], "Status": test["Records"].map(rate).fillna(overall)})
sub.to_csv("submission.csv", index=False)
