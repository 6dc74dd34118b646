# corpus: category=bug intent=the submission-writing block sits under an `if False:` left from debugging expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesRegressor

DEBUG = False
train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["wc"] = df["water"] / df["cement"]
    df["log_age"] = np.log(df["age"])
feats = [c for c in test.columns if c != "id"]
et = ExtraTreesRegressor(n_estimators=500, random_state=0).fit(train[feats], train["compressive_strength"])
pred = et.predict(test[feats])
print("mean prediction", pred.mean())

if False:
    pd.DataFrame({"id": test["id"], "compressive_strength": pred}).to_csv("submission.csv", index=False)
