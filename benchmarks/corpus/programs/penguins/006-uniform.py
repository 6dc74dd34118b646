# corpus: category=weak intent=uniform one-third probability for every species expected=low
import pandas as pd

test = pd.read_csv("data/test.csv")
sub = pd.DataFrame({"id": test["id"], "Adelie": 1 / 3, "Chinstrap": 1 / 3, "Gentoo": 1 / 3})
sub.to_csv("submission.csv", index=False)
