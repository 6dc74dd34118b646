# corpus: category=bug intent=get_dummies on train and test separately (works only because every yes/no level appears in both) expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = pd.get_dummies(train.drop(columns=["id", "price"]), drop_first=True)
X_test = pd.get_dummies(test.drop(columns=["id"]), drop_first=True)
gbr = GradientBoostingRegressor(n_estimators=400, learning_rate=0.05, max_depth=4, random_state=0)
gbr.fit(X, np.log(train["price"]))
pd.DataFrame({"id": test["id"], "price": np.exp(gbr.predict(X_test))}).to_csv("submission.csv", index=False)
