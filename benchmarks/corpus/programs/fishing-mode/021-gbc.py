# corpus: category=typical intent=default GradientBoostingClassifier probabilities expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
gbc = GradientBoostingClassifier(random_state=0).fit(X, train["mode"])
sub = pd.DataFrame(gbc.predict_proba(test[X.columns]), columns=gbc.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
