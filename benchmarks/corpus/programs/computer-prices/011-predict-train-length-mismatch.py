# corpus: category=bug intent=predicts on X (train) and builds the frame with test ids of a different length expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="price"), test]), dtype=int)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
rf = RandomForestRegressor(n_estimators=200, random_state=0).fit(X, np.log(train["price"]))
pred = np.exp(rf.predict(X))
pd.DataFrame({"id": test["id"].values, "price": pred}).to_csv("submission.csv", index=False)
