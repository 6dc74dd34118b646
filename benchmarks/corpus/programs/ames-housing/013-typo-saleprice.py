# corpus: category=bug intent=target referenced as SalePrice (Kaggle spelling) instead of Sale_Price expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
y = np.log1p(train["SalePrice"])
num = train.select_dtypes("number").columns.drop(["id", "Sale_Price"])
gbr = GradientBoostingRegressor(n_estimators=300).fit(train[num], y)
pd.DataFrame({"id": test.id, "Sale_Price": np.expm1(gbr.predict(test[num]))}).to_csv("submission.csv", index=False)
