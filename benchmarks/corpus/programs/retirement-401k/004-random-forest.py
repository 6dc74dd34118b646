# corpus: category=typical intent=random forest classifier with default settings expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["inc", "marr", "male", "age", "fsize", "nettfa", "pira", "incsq", "agesq"]
rf = RandomForestClassifier(n_estimators=200, random_state=42)
rf.fit(train[features], train["e401k"])
sub = pd.DataFrame({"id": test["id"], "e401k": rf.predict(test[features])})
sub.to_csv("submission.csv", index=False)
print(sub["e401k"].mean())
