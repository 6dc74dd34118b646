# corpus: category=bug intent=trains on log1p(Sale_Price) and writes the log-scale predictions expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="Sale_Price"), test]), dtype=float).fillna(0)
X = full.iloc[: len(train)].drop(columns="id")
Xt = full.iloc[len(train):].drop(columns="id")

y = np.log1p(train["Sale_Price"])  # RMSLE -> optimise RMSE on log scale
rf = RandomForestRegressor(n_estimators=200, max_features=0.3, random_state=0, n_jobs=1)
rf.fit(X, y)
pred = rf.predict(Xt)
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
print(pred[:5])
