# corpus: category=bug intent=uses np.log1p and np.expm1 without importing numpy expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num = [c for c in test.columns if c != "id" and pd.api.types.is_numeric_dtype(test[c])]
model = HistGradientBoostingRegressor(max_iter=400, learning_rate=0.05)
model.fit(train[num], np.log1p(train["Sale_Price"]))
pd.DataFrame({"id": test["id"], "Sale_Price": np.expm1(model.predict(test[num]))}).to_csv("submission.csv", index=False)
