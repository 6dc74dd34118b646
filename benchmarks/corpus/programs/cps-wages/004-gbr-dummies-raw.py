# corpus: category=typical intent=GradientBoostingRegressor on dummies, raw wage target expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
combined = pd.get_dummies(pd.concat([train, test], sort=False), columns=["ethnicity", "smsa", "region", "parttime"])
tr = combined[combined["wage"].notnull()]
te = combined[combined["wage"].isnull()]
features = [c for c in combined.columns if c not in ("id", "wage")]
gbr = GradientBoostingRegressor(n_estimators=200, max_depth=3, random_state=0)
gbr.fit(tr[features], tr["wage"])
pd.DataFrame({"id": te["id"].astype(int), "wage": gbr.predict(te[features])}).to_csv("submission.csv", index=False)
