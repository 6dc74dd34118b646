# corpus: category=typical intent=default GradientBoostingClassifier with a month feature expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
train["month"] = pd.to_datetime(train.date).dt.month
test["month"] = pd.to_datetime(test.date).dt.month
features = ["precipitation", "temp_max", "temp_min", "wind", "month"]
gbc = GradientBoostingClassifier(random_state=0)
gbc.fit(train[features], train.weather)
pred = gbc.predict_proba(test[features])
submission = pd.DataFrame(pred, columns=gbc.classes_)
submission.insert(0, "id", test.id)
submission.to_csv("submission.csv", index=False)
print(submission.head())
