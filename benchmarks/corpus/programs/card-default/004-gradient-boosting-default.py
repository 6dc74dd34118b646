# corpus: category=typical intent=GradientBoostingClassifier with default settings, CV AUC printed expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = pd.get_dummies(train[["student", "balance", "income"]], drop_first=True)
X_test = pd.get_dummies(test[["student", "balance", "income"]], drop_first=True)
y = train["default"]

gb = GradientBoostingClassifier(random_state=42)
print("CV AUC:", cross_val_score(gb, X, y, cv=5, scoring="roc_auc").mean())
gb.fit(X, y)

submission = pd.DataFrame({"id": test["id"], "default": gb.predict_proba(X_test)[:, 1]})
submission.to_csv("submission.csv", index=False)
