# corpus: category=bug intent=writes the predicted weather label in a single column instead of class probabilities expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train[["precipitation", "temp_max", "temp_min", "wind"]]
rf = RandomForestClassifier(n_estimators=300, random_state=0).fit(X, train["weather"])
test["weather"] = rf.predict(test[X.columns])
test[["id", "weather"]].to_csv("submission.csv", index=False)
print(test["weather"].value_counts())
