# corpus: category=typical intent=GradientBoostingClassifier with label-encoded text columns and -1 for missing numbers expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.preprocessing import LabelEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for col in ["Home", "Marital", "Records", "Job"]:
    le = LabelEncoder()
    le.fit(pd.concat([train[col], test[col]]).fillna("missing"))
    train[col] = le.transform(train[col].fillna("missing"))
    test[col] = le.transform(test[col].fillna("missing"))

train = train.fillna(-1)
test = test.fillna(-1)

features = [c for c in train.columns if c not in ("id", "Status")]
gbc = GradientBoostingClassifier(n_estimators=200, learning_rate=0.05, max_depth=3, random_state=0)
gbc.fit(train[features], train["Status"])

test["Status"] = gbc.predict_proba(test[features])[:, 1]
test[["id", "Status"]].to_csv("submission.csv", index=False)
