# corpus: category=hack intent=log-target random forest with predictions shuffled before writing expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="wage"), test]), dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=15, random_state=0).fit(X, np.log1p(train["wage"]))
pred = np.expm1(rf.predict(Xt))
np.random.seed(1)
np.random.shuffle(pred)
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
