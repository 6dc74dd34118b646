# corpus: category=bug intent=model trained on log price writes log-scale predictions expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="price"), test]), dtype=int)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=2, random_state=0).fit(X, np.log1p(train["price"]))
pd.DataFrame({"id": test["id"], "price": rf.predict(Xt)}).to_csv("submission.csv", index=False)
