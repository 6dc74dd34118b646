# corpus: category=bug intent=LeaveOneOut CV of gradient boosting on 4875 rows, far over the time limit expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import LeaveOneOut, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="wage"), test]), dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
y = np.log1p(train["wage"])
gbr = GradientBoostingRegressor(n_estimators=100, max_depth=3)
scores = cross_val_score(gbr, X, y, cv=LeaveOneOut(), scoring="neg_mean_squared_error")
print("LOO RMSE", np.sqrt(-scores.mean()))
gbr.fit(X, y)
pd.DataFrame({"id": test["id"], "wage": np.expm1(gbr.predict(Xt))}).to_csv("submission.csv", index=False)
