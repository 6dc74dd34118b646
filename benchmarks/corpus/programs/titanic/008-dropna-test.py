# corpus: category=bug intent=dropna on both frames removes test passengers with unknown age from the submission expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv").dropna()
test = pd.read_csv("data/test.csv").dropna()
for df in (train, test):
    df["female"] = (df["sex"] == "female").astype(int)
    df["pclass"] = df["passengerClass"].str[0].astype(int)
feats = ["female", "pclass", "age"]
gb = GradientBoostingClassifier(n_estimators=100, max_depth=3).fit(train[feats], train["survived"])
pd.DataFrame({"id": test["id"], "survived": gb.predict(test[feats])}).to_csv("submission.csv", index=False)
