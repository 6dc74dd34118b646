# corpus: category=bug intent=feature list misspells experience as experiance expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["parttime"] = (df["parttime"] == "yes").astype(int)
    df["smsa"] = (df["smsa"] == "yes").astype(int)
features = ["education", "experiance", "smsa", "parttime"]
rf = RandomForestRegressor(n_estimators=300, min_samples_leaf=20, random_state=0)
rf.fit(train[features], np.log(train["wage"]))
pd.DataFrame({"id": test["id"], "wage": np.exp(rf.predict(test[features]))}).to_csv("submission.csv", index=False)
