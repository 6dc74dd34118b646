# corpus: category=bug intent=a pipeline is built and cross-validated but the final model is never fit before predict expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
y = train["compressive_strength"]
pipe = Pipeline([("sc", StandardScaler()), ("gbr", GradientBoostingRegressor(n_estimators=400, learning_rate=0.05, max_depth=4))])
print("cv r2:", cross_val_score(pipe, X, y, cv=5, scoring="r2").mean())

pred = pipe.predict(test[X.columns])
pd.DataFrame({"id": test["id"], "compressive_strength": pred}).to_csv("submission.csv", index=False)
