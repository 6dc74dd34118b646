# corpus: category=weak intent=class frequencies from train written for every test row expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
prior = train["weather"].value_counts(normalize=True)
sub = pd.DataFrame({"id": test["id"]})
for c in ["drizzle", "fog", "rain", "snow", "sun"]:
    sub[c] = prior.get(c, 0.0)
sub.to_csv("submission.csv", index=False)
