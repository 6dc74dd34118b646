# corpus: category=bug intent=get_dummies applied to train and test separately, relying on identical levels expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

y = train.pop("churn")
train["total_charges"] = train["total_charges"].fillna(0)
test["total_charges"] = test["total_charges"].fillna(0)

X = pd.get_dummies(train.drop(columns="id"), dtype=float)
X_test = pd.get_dummies(test.drop(columns="id"), dtype=float)

clf = LogisticRegression(max_iter=3000)
clf.fit(X, y)
pd.DataFrame({"id": test["id"], "churn": clf.predict_proba(X_test)[:, 1]}).to_csv("submission.csv", index=False)
