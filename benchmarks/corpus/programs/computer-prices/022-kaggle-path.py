# corpus: category=bug intent=reads /kaggle/input/computer-prices/train.csv instead of data/train.csv expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

DATA = "/kaggle/input/computer-prices"
train = pd.read_csv(f"{DATA}/train.csv")
test = pd.read_csv(f"{DATA}/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="price"), test]), dtype=int)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
rf = RandomForestRegressor(n_estimators=300, random_state=0).fit(X, np.log(train["price"]))
pd.DataFrame({"id": test["id"], "price": np.exp(rf.predict(Xt))}).to_csv("submission.csv", index=False)
