# corpus: category=bug intent=to_csv without index=False adds an unnamed leading index column expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
gbc = GradientBoostingClassifier(n_estimators=200, max_depth=3, random_state=0).fit(X, train["e401k"])
submission = pd.DataFrame({"id": test["id"], "e401k": gbc.predict(test[X.columns])})
submission.to_csv("submission.csv")
