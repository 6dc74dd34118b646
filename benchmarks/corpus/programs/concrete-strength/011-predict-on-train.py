# corpus: category=bug intent=predicts on the training matrix and pairs the 772 predictions with the 258 test ids expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
y = train["compressive_strength"]
gbr = GradientBoostingRegressor(n_estimators=500, learning_rate=0.05, max_depth=4).fit(X, y)
preds = gbr.predict(X)
sub = pd.DataFrame({"id": test["id"], "compressive_strength": preds})
sub.to_csv("submission.csv", index=False)
