# corpus: category=bug intent=writes predicted probabilities where 0/1 labels are required expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
gbc = GradientBoostingClassifier(n_estimators=200, max_depth=3, random_state=0).fit(X, train["e401k"])
pd.DataFrame({"id": test["id"], "e401k": gbc.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
