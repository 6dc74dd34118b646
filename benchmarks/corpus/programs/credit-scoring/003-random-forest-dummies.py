# corpus: category=typical intent=random forest on get_dummies of concatenated train+test with median fill expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

full = pd.concat([train.drop(columns=["Status"]), test], ignore_index=True)
full = pd.get_dummies(full, columns=["Home", "Marital", "Records", "Job"], dummy_na=True)
full = full.fillna(full.median(numeric_only=True))

X = full.iloc[: len(train)].drop(columns=["id"])
X_test = full.iloc[len(train):].drop(columns=["id"])
y = train["Status"]

rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=3, random_state=42, n_jobs=1)
rf.fit(X, y)

submission = pd.DataFrame({"id": test["id"], "Status": rf.predict_proba(X_test)[:, 1]})
submission.to_csv("submission.csv", index=False)
print(submission.head())
