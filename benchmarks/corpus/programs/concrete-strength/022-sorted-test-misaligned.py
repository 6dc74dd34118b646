# corpus: category=bug intent=test sorted by age for inspection, predictions then paired with ids in the original order expected=low
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
ids = test["id"].copy()
test = test.sort_values("age").reset_index(drop=True)
print(test.head())
X = train.drop(columns=["id", "compressive_strength"])
rf = RandomForestRegressor(n_estimators=300, random_state=0).fit(X, train["compressive_strength"])
pred = rf.predict(test[X.columns])
pd.DataFrame({"id": ids, "compressive_strength": pred}).to_csv("submission.csv", index=False)
