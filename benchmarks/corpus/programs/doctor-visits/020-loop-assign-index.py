# corpus: category=unusual intent=for df in [train, test] features, .assign, absolute-error HGB, id index with to_csv() expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    df["any_coins"] = (df["lncoins"] > 0).astype(int)
    df["sick"] = df["hlthf"] + df["hlthp"]
train = train.assign(disea_phys=train.disea * (1 + train.physlm))
test = test.assign(disea_phys=test.disea * (1 + test.physlm))

cols = [c for c in test.columns if c != "id"]
reg = HistGradientBoostingRegressor(loss="absolute_error", max_iter=250, learning_rate=0.05, min_samples_leaf=30, random_state=0)
reg.fit(train[cols], train["mdvis"])
out = test.set_index("id")
out["mdvis"] = reg.predict(out[cols])
out[["mdvis"]].to_csv("submission.csv")
