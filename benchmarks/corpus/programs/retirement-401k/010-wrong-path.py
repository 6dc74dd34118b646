# corpus: category=bug intent=reads train.csv from the working directory instead of data/ expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
X = train.drop(columns=["id", "e401k"])
gbc = GradientBoostingClassifier().fit(X, train["e401k"])
pd.DataFrame({"id": test["id"], "e401k": gbc.predict(test[X.columns])}).to_csv("submission.csv", index=False)
