# corpus: category=typical intent=default gradient boosting classifier probabilities expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
gbc = GradientBoostingClassifier(random_state=0).fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": gbc.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
