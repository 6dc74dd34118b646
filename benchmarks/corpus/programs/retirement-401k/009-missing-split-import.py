# corpus: category=bug intent=uses train_test_split for a holdout without importing it expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
y = train["e401k"]
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=0)
rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=5, random_state=0).fit(X_tr, y_tr)
print("holdout accuracy", accuracy_score(y_va, rf.predict(X_va)))
rf.fit(X, y)
pd.DataFrame({"id": test["id"], "e401k": rf.predict(test[X.columns])}).to_csv("submission.csv", index=False)
