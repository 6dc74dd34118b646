# corpus: category=weak intent=class frequencies from train for every row expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
freq = train["mode"].value_counts(normalize=True)
sub = pd.DataFrame({"id": test["id"]})
for m in ["beach", "boat", "charter", "pier"]:
    sub[m] = freq[m]
sub.to_csv("submission.csv", index=False)
