# corpus: category=bug intent=get_dummies on train and test separately with many rare categories, column mismatch at predict expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X_train = pd.get_dummies(train.drop(columns=["id", "Sale_Price"]))
X_test = pd.get_dummies(test.drop(columns=["id"]))
y = np.log1p(train["Sale_Price"])

model = GradientBoostingRegressor(n_estimators=400, learning_rate=0.05, max_depth=3)
model.fit(X_train, y)
pred = np.expm1(model.predict(X_test))
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
