# corpus: category=bug intent=forward-fills missing income/assets/debt with fillna(method=...) which pandas 3 no longer accepts expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

money = ["Income", "Assets", "Debt"]
for df in (train, test):
    df[money] = df[money].fillna(method="ffill").fillna(0)
    for c in ["Home", "Marital", "Job"]:
        df[c] = df[c].fillna("unknown")

X = pd.get_dummies(train.drop(columns=["id", "Status"]))
X_test = pd.get_dummies(test.drop(columns=["id"])).reindex(columns=X.columns, fill_value=0)

rf = RandomForestClassifier(n_estimators=400, min_samples_leaf=2, random_state=1)
rf.fit(X, train["Status"])
pd.DataFrame({"id": test["id"], "Status": rf.predict_proba(X_test)[:, 1]}).to_csv("submission.csv", index=False)
