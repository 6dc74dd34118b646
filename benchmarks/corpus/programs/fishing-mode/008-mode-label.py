# corpus: category=bug intent=writes the predicted mode label in one column instead of four probabilities expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
gb = GradientBoostingClassifier(n_estimators=150, max_depth=3, random_state=0).fit(X, train["mode"])
pd.DataFrame({"id": test["id"], "mode": gb.predict(test[X.columns])}).to_csv("submission.csv", index=False)
