# corpus: category=weak intent=species frequencies per island used as the probabilities expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
table = pd.crosstab(train["island"], train["species"], normalize="index")
probs = table.reindex(test["island"]).fillna(1 / 3).reset_index(drop=True)
sub = pd.concat([test[["id"]].reset_index(drop=True), probs], axis=1)
sub = sub[["id", "Adelie", "Chinstrap", "Gentoo"]]
sub.to_csv("submission.csv", index=False)
