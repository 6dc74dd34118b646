# corpus: category=unusual intent=for df in [train, test] binary flags, .assign experience terms, HGB on log wage, sub.insert expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    df["smsa"] = df["smsa"].eq("yes").astype(int)
    df["parttime"] = df["parttime"].eq("yes").astype(int)
    df["cauc"] = df["ethnicity"].eq("cauc").astype(int)
    df["region"] = df["region"].astype("category").cat.codes

train = train.assign(exp2=train.experience ** 2)
test = test.assign(exp2=test.experience ** 2)
feats = ["education", "experience", "exp2", "smsa", "parttime", "cauc", "region"]
hgb = HistGradientBoostingRegressor(max_iter=250, learning_rate=0.05, min_samples_leaf=50, random_state=0)
hgb.fit(train[feats], np.log(train.wage))
sub = pd.DataFrame({"wage": np.exp(hgb.predict(test[feats]))})
sub.insert(0, "id", test.id.values)
sub.to_csv("submission.csv", index=False)
