# corpus: category=bug intent=engineered feature references hltgh instead of hlthg expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["health"] = df["hltgh"] + 2 * df["hlthf"] + 3 * df["hlthp"]
feats = [c for c in test.columns if c != "id"]
m = HistGradientBoostingRegressor(loss="absolute_error", max_iter=200).fit(train[feats], train["mdvis"])
pd.DataFrame({"id": test["id"], "mdvis": m.predict(test[feats])}).to_csv("submission.csv", index=False)
