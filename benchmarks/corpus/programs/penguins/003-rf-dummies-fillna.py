# corpus: category=typical intent=random forest with get_dummies and fillna(0) expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = pd.get_dummies(train.drop(columns=["id", "species"]), columns=["island", "sex"]).fillna(0)
X_test = pd.get_dummies(test.drop(columns=["id"]), columns=["island", "sex"]).fillna(0)
X_test = X_test.reindex(columns=X.columns, fill_value=0)
rf = RandomForestClassifier(n_estimators=300, random_state=42)
rf.fit(X, train["species"])
sub = pd.DataFrame(rf.predict_proba(X_test), columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
