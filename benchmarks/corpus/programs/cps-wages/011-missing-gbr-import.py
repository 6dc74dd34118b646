# corpus: category=bug intent=imports RandomForestRegressor but instantiates GradientBoostingRegressor expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="wage"), test]), dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
model = GradientBoostingRegressor(n_estimators=300, learning_rate=0.05, max_depth=3)
model.fit(X, np.log(train["wage"]))
pd.DataFrame({"id": test["id"], "wage": np.exp(model.predict(Xt))}).to_csv("submission.csv", index=False)
