# corpus: category=bug intent=get_dummies(test) keeps id while the train matrix dropped it, feature names mismatch at predict expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
train["age"] = train["age"].fillna(train["age"].median())
test["age"] = test["age"].fillna(train["age"].median())
X = pd.get_dummies(train.drop(columns=["id", "survived"]))
X_test = pd.get_dummies(test)
rf = RandomForestClassifier(n_estimators=300, max_depth=6, random_state=0).fit(X, train["survived"])
pd.DataFrame({"id": test["id"], "survived": rf.predict(X_test)}).to_csv("submission.csv", index=False)
