# corpus: category=bug intent=passes the ISO date string column straight into the classifier expected=fail
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "weather"])
et = ExtraTreesClassifier(n_estimators=300, min_samples_leaf=2, random_state=0)
et.fit(X, train["weather"])
sub = pd.DataFrame(et.predict_proba(test.drop(columns=["id"])), columns=et.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
