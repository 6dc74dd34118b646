# corpus: category=strong intent=Mincer-style ridge on log wage (experience squared, interactions) blended with gradient boosting expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import RidgeCV

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n = len(train)
full = pd.concat([train.drop(columns="wage"), test], ignore_index=True)
full["exp2"] = full["experience"] ** 2 / 100
full["exp3"] = full["experience"] ** 3 / 1000
full["edu_exp"] = full["education"] * full["experience"] / 10
full["pt"] = (full["parttime"] == "yes").astype(float)
full["pt_exp"] = full["pt"] * full["experience"]
full = pd.get_dummies(full, columns=["ethnicity", "smsa", "region", "parttime"], drop_first=True, dtype=float)
X = full.drop(columns="id")
Xtr, Xte = X.iloc[:n], X.iloc[n:]
y = np.log(train["wage"])

ridge = RidgeCV(alphas=np.logspace(-3, 2, 20)).fit(Xtr, y)
gbm = GradientBoostingRegressor(n_estimators=400, learning_rate=0.03, max_depth=3, subsample=0.8, random_state=0).fit(Xtr, y)
log_pred = 0.4 * ridge.predict(Xte) + 0.6 * gbm.predict(Xte)
pd.DataFrame({"id": test["id"], "wage": np.exp(log_pred)}).to_csv("submission.csv", index=False)
