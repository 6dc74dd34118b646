# corpus: category=bug intent=assigns the full two-column predict_proba output to the default column expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

train["is_student"] = (train.student == "Yes").astype(int)
test["is_student"] = (test.student == "Yes").astype(int)
feats = ["balance", "income", "is_student"]

clf = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, random_state=0)
clf.fit(train[feats], train["default"])

sub = pd.read_csv("data/sample_submission.csv")
sub["id"] = test["id"]
sub["default"] = clf.predict_proba(test[feats])
sub.to_csv("submission.csv", index=False)
