# corpus: category=strong intent=HistGradientBoosting with absolute_error loss, matching the MAE metric expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = [c for c in test.columns if c != "id"]
model = HistGradientBoostingRegressor(loss="absolute_error", learning_rate=0.05, max_iter=300, min_samples_leaf=40, random_state=0)
mae = -cross_val_score(model, train[features], train["mdvis"], cv=KFold(5, shuffle=True, random_state=0), scoring="neg_mean_absolute_error")
print("CV MAE %.4f" % mae.mean())
model.fit(train[features], train["mdvis"])
pred = model.predict(test[features]).clip(min=0)
pd.DataFrame({"id": test["id"], "mdvis": pred}).to_csv("submission.csv", index=False)
