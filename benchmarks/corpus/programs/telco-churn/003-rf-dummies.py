# corpus: category=typical intent=random forest on get_dummies of concatenated frames expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

all_data = pd.concat([train, test], keys=["train", "test"])
all_data["total_charges"] = all_data["total_charges"].fillna(0)
all_data = pd.get_dummies(all_data.drop(columns=["churn"]))

X = all_data.loc["train"].drop(columns=["id"])
X_test = all_data.loc["test"].drop(columns=["id"])
y = train["churn"]

rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=5, random_state=0)
rf.fit(X, y)
pred = rf.predict_proba(X_test)[:, 1]

submission = pd.DataFrame({"id": test["id"], "churn": pred})
submission.to_csv("submission.csv", index=False)
print(submission.head())
