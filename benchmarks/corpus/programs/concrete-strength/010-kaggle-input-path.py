# corpus: category=bug intent=reads the Kaggle path ../input/train.csv instead of data/train.csv expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("../input/train.csv")
test = pd.read_csv("../input/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
rf = RandomForestRegressor(n_estimators=400, random_state=0).fit(X, train.compressive_strength)
pd.DataFrame({"id": test.id, "compressive_strength": rf.predict(test[X.columns])}).to_csv("submission.csv", index=False)
