# corpus: category=bug intent=ExtraTrees model constructed and used for prediction without ever calling fit expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="price"), test]), dtype=int)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
y = np.log(train["price"])
model = ExtraTreesRegressor(n_estimators=300, min_samples_leaf=2, random_state=0)
print("training rows:", X.shape, "target mean:", y.mean())
pd.DataFrame({"id": test["id"], "price": np.exp(model.predict(Xt))}).to_csv("submission.csv", index=False)
