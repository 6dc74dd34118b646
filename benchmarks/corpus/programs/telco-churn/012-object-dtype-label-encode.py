# corpus: category=typical intent=label-encode columns whose dtype == object (pandas 3 reads text as str, not object), then gradient boosting expected=fail
import pandas as pd
from sklearn.preprocessing import LabelEncoder
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for col in train.columns:
    if train[col].dtype == object:
        le = LabelEncoder()
        le.fit(pd.concat([train[col], test[col]]).astype(str))
        train[col] = le.transform(train[col].astype(str))
        test[col] = le.transform(test[col].astype(str))

train = train.fillna(-1)
test = test.fillna(-1)
features = [c for c in train.columns if c not in ["id", "churn"]]
gb = GradientBoostingClassifier(n_estimators=150, max_depth=3, random_state=0)
gb.fit(train[features], train["churn"])
sub = pd.DataFrame({"id": test["id"], "churn": gb.predict_proba(test[features])[:, 1]})
sub.to_csv("submission.csv", index=False)
