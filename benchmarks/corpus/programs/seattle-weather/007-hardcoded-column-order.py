# corpus: category=bug intent=probabilities in classes_ order written under a hand-typed header in a different order expected=low
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["precipitation", "temp_max", "temp_min", "wind"]
gb = GradientBoostingClassifier(n_estimators=150, max_depth=2, learning_rate=0.05, random_state=0)
gb.fit(train[features], train["weather"])
p = gb.predict_proba(test[features])

classes = ["sun", "rain", "fog", "drizzle", "snow"]  # most to least common
sub = pd.DataFrame(p, columns=classes)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
