# corpus: category=unusual intent=loop over columns checking df[c].dtype to map yes/no to 1/0, HGB on log price, sub.insert expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c].dtype):
            df[c] = df[c].map({"yes": 1, "no": 0})
features = [c for c in test.columns if c != "id"]
hgb = HistGradientBoostingRegressor(max_iter=500, learning_rate=0.06, random_state=1).fit(train[features], np.log(train["price"]))
sub = pd.DataFrame({"price": np.exp(hgb.predict(test[features]))})
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
