# corpus: category=bug intent=the fit call is inside an `if False:` block used to skip slow training, predict then hits an unfitted model expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mdvis"])
y = train["mdvis"]
model = RandomForestRegressor(n_estimators=500, min_samples_leaf=5, random_state=0)
if False:  # training takes a while, skip while iterating
    model.fit(X, y)
pd.DataFrame({"id": test["id"], "mdvis": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
