# corpus: category=bug intent=gradient-boosted-looking random forest that writes one predicted species column instead of 32 probability columns expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

full = pd.get_dummies(pd.concat([train, test], keys=["a", "b"]).drop(columns="species"), dtype=int)
X, X_test = full.loc["a"].drop(columns="id"), full.loc["b"].drop(columns="id")
y = train["species"]

rf = RandomForestClassifier(n_estimators=400, random_state=1)
print("cv accuracy", cross_val_score(rf, X, y, cv=3).mean())
rf.fit(X, y)

pd.DataFrame({"id": test["id"], "species": rf.predict(X_test)}).to_csv("submission.csv", index=False)
