# corpus: category=typical intent=default GradientBoostingRegressor (squared loss) on ordinal-encoded columns expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.preprocessing import OrdinalEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]
enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
Xtr = train[["year", "age"]].join(pd.DataFrame(enc.fit_transform(train[cats]), columns=cats))
Xte = test[["year", "age"]].join(pd.DataFrame(enc.transform(test[cats]), columns=cats))

gbr = GradientBoostingRegressor(random_state=0)
gbr.fit(Xtr, train["wage"])
pd.DataFrame({"id": test["id"], "wage": gbr.predict(Xte)}).to_csv("submission.csv", index=False)
