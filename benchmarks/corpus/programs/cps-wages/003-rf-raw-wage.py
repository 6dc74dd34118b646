# corpus: category=typical intent=random forest on raw wages with label-encoded categoricals expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for col in ["ethnicity", "smsa", "region", "parttime"]:
    mapping = {v: i for i, v in enumerate(sorted(train[col].unique()))}
    train[col] = train[col].map(mapping)
    test[col] = test[col].map(mapping).fillna(-1)

features = ["education", "experience", "ethnicity", "smsa", "region", "parttime"]
rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=10, random_state=0)
rf.fit(train[features], train["wage"])
pd.DataFrame({"id": test["id"], "wage": rf.predict(test[features])}).to_csv("submission.csv", index=False)
