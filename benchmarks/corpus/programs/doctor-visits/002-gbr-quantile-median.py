# corpus: category=strong intent=GradientBoosting with quantile loss at alpha 0.5 (conditional median) and a health index feature expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["health_index"] = df["hlthg"] + 2 * df["hlthf"] + 3 * df["hlthp"]
    df["free_care"] = (df["lncoins"] == 0).astype(int)
features = [c for c in test.columns if c != "id"]
gbr = GradientBoostingRegressor(loss="quantile", alpha=0.5, n_estimators=300, learning_rate=0.05, max_depth=3, subsample=0.8, random_state=0)
gbr.fit(train[features], train["mdvis"])
pd.DataFrame({"id": test["id"], "mdvis": gbr.predict(test[features])}).to_csv("submission.csv", index=False)
