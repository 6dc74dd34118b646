# corpus: category=bug intent=left-over sub.head(50) debugging slice written as the submission expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
rf = RandomForestClassifier(n_estimators=200, min_samples_leaf=3, random_state=0).fit(train[cols], train["weather"])
sub = pd.DataFrame(rf.predict_proba(test[cols]), columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub = sub.head(50)
print(sub)
sub.to_csv("submission.csv", index=False)
