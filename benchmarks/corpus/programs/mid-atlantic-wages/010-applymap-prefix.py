# corpus: category=bug intent=strips the ordering prefixes with DataFrame.applymap, removed in pandas 3 expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]

to_code = lambda s: int(str(s).split(".")[0])
train[cats] = train[cats].applymap(to_code)
test[cats] = test[cats].applymap(to_code)

features = ["year", "age"] + cats
rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=10, random_state=1)
rf.fit(train[features], train["wage"])
pd.DataFrame({"id": test["id"], "wage": rf.predict(test[features])}).to_csv("submission.csv", index=False)
