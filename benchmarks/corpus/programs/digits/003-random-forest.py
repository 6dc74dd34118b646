# corpus: category=typical intent=random forest with 300 trees on the 64 pixels expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = train.drop(columns=["id", "target"])
y = train["target"]
clf = RandomForestClassifier(n_estimators=300, random_state=0)
clf.fit(X, y)

submission = pd.DataFrame({"id": test["id"], "target": clf.predict(test.drop(columns=["id"]))})
submission.to_csv("submission.csv", index=False)
