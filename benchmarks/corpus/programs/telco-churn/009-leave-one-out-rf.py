# corpus: category=bug intent=LeaveOneOut cross-validation of a random forest on 4875 rows blows the time budget expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.metrics import roc_auc_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="churn"), test]).fillna(0), dtype=float)
X = full.iloc[: len(train)].drop(columns="id")
X_test = full.iloc[len(train):].drop(columns="id")
y = train["churn"]

rf = RandomForestClassifier(n_estimators=100, random_state=0)
oof = cross_val_predict(rf, X, y, cv=LeaveOneOut(), method="predict_proba")[:, 1]
print("LOO AUC", roc_auc_score(y, oof))

rf.fit(X, y)
pd.DataFrame({"id": test["id"], "churn": rf.predict_proba(X_test)[:, 1]}).to_csv("submission.csv", index=False)
