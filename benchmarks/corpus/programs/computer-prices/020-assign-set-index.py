# corpus: category=unusual intent=.assign feature pipeline, gradient boosting on log price, id index written by to_csv() expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor


def features(df):
    return df.assign(
        cd=df.cd.eq("yes").astype(int),
        multi=df.multi.eq("yes").astype(int),
        premium=df.premium.eq("yes").astype(int),
        log_hd=np.log(df.hd),
        ram_per_speed=df.ram / df.speed,
    )


train = features(pd.read_csv("data/train.csv")).set_index("id")
test = features(pd.read_csv("data/test.csv")).set_index("id")
y = np.log(train.pop("price"))
gbr = GradientBoostingRegressor(n_estimators=600, learning_rate=0.05, max_depth=5, subsample=0.8, random_state=0).fit(train, y)
pd.DataFrame({"price": np.exp(gbr.predict(test[train.columns]))}, index=test.index).to_csv("submission.csv")
