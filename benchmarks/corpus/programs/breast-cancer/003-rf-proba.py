# corpus: category=typical intent=random forest probabilities of the benign class expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
rf = RandomForestClassifier(n_estimators=300, random_state=0).fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": rf.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
