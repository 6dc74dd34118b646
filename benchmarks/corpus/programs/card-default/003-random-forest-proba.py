# corpus: category=typical intent=RandomForestClassifier probabilities on dummy-coded features expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

train["student"] = (train["student"] == "Yes").astype(int)
test["student"] = (test["student"] == "Yes").astype(int)
cols = ["student", "balance", "income"]

rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=5, random_state=0)
rf.fit(train[cols], train["default"])
test["default"] = rf.predict_proba(test[cols])[:, 1]
test[["id", "default"]].to_csv("submission.csv", index=False)
print(test["default"].describe())
