# corpus: category=typical intent=random forest on the four weather measurements, predict_proba columns from classes_ expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["precipitation", "temp_max", "temp_min", "wind"]
model = RandomForestClassifier(n_estimators=200, random_state=1)
model.fit(train[features], train["weather"])
probs = model.predict_proba(test[features])
sub = pd.DataFrame(probs, columns=model.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
