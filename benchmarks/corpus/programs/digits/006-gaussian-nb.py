# corpus: category=weak intent=Gaussian naive Bayes on the raw pixels expected=low
import pandas as pd
from sklearn.naive_bayes import GaussianNB

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cols = [c for c in test.columns if c != "id"]
nb = GaussianNB().fit(train[cols], train["target"])
print("train acc", nb.score(train[cols], train["target"]))
pd.DataFrame({"id": test["id"], "target": nb.predict(test[cols])}).to_csv("submission.csv", index=False)
