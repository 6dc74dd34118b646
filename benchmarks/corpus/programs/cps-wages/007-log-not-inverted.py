# corpus: category=bug intent=fits log(wage) and writes the log predictions without exponentiating expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="wage"), test]), dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05)
model.fit(X, np.log(train["wage"]))
pred = model.predict(Xt)
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
