# corpus: category=weak intent=depth-3 decision tree on numeric columns only expected=low
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv").fillna(0)
test = pd.read_csv("data/test.csv").fillna(0)

num = [c for c in train.select_dtypes("number").columns if c not in ("id", "churn")]
clf = DecisionTreeClassifier(max_depth=3, random_state=0)
clf.fit(train[num], train["churn"])
pd.DataFrame({"id": test["id"], "churn": clf.predict_proba(test[num])[:, 1]}).to_csv("submission.csv", index=False)
