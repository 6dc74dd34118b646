# corpus: category=bug intent=ids written as range(1, n+1) rather than the test ids expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mdvis"])
gbr = GradientBoostingRegressor(loss="absolute_error", n_estimators=200, random_state=0).fit(X, train["mdvis"])
pred = gbr.predict(test[X.columns])
sub = pd.DataFrame({"id": range(1, len(pred) + 1), "mdvis": pred})
sub.to_csv("submission.csv", index=False)
