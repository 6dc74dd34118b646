# corpus: category=bug intent=get_dummies(test) keeps the id column so the test matrix has a feature the model never saw expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = pd.get_dummies(train.drop(columns=["id", "mdvis"]))
X_test = pd.get_dummies(test)
gbr = GradientBoostingRegressor(loss="absolute_error", n_estimators=300, random_state=0).fit(X, train["mdvis"])
pd.DataFrame({"id": test["id"], "mdvis": gbr.predict(X_test)}).to_csv("submission.csv", index=False)
