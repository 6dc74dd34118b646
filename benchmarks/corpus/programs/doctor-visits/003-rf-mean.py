# corpus: category=typical intent=random forest regression (squared error) on all features expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mdvis"])
rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=10, random_state=0).fit(X, train["mdvis"])
pd.DataFrame({"id": test["id"], "mdvis": rf.predict(test[X.columns])}).to_csv("submission.csv", index=False)
