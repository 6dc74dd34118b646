# corpus: category=typical intent=default random forest on the eight mixture columns expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(["id", "compressive_strength"], axis=1)
y = train["compressive_strength"]
rf = RandomForestRegressor(random_state=0)
rf.fit(X, y)
pred = rf.predict(test.drop("id", axis=1))
pd.DataFrame({"id": test["id"], "compressive_strength": pred}).to_csv("submission.csv", index=False)
