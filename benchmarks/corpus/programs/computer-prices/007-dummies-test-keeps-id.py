# corpus: category=bug intent=get_dummies(test) includes id while train features exclude it expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = pd.get_dummies(train.drop(columns=["id", "price"]))
X_test = pd.get_dummies(test)
gbr = GradientBoostingRegressor(n_estimators=300, max_depth=4).fit(X, np.log(train["price"]))
pd.DataFrame({"id": test["id"], "price": np.exp(gbr.predict(X_test))}).to_csv("submission.csv", index=False)
