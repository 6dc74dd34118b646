# corpus: category=typical intent=random forest probabilities with min_samples_leaf to avoid zeros expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=5, random_state=0).fit(X, train["mode"])
sub = pd.DataFrame(rf.predict_proba(test[X.columns]), columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
