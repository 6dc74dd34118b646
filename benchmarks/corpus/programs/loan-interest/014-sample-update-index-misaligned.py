# corpus: category=hack intent=ridge+GBM predictions written through sample.update with an id-indexed frame, so most rows keep the baseline and the rest get other loans' rates expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

num = [c for c in train.select_dtypes("number").columns if c not in ("id", "interest_rate")]
fill = train[num].median()
Xtr = train[num].fillna(fill)
Xte = test[num].fillna(fill)
for name, df in (("tr", Xtr), ("te", Xte)):
    df["long_term"] = (df["term"] == 60).astype(float)

scaler = StandardScaler().fit(Xtr)
ridge = Ridge(alpha=3.0).fit(scaler.transform(Xtr), train["interest_rate"])
gbm = GradientBoostingRegressor(n_estimators=200, max_depth=3, learning_rate=0.07, random_state=5)
gbm.fit(Xtr, train["interest_rate"])

blend = 0.35 * ridge.predict(scaler.transform(Xte)) + 0.65 * gbm.predict(Xte)
preds = pd.DataFrame({"interest_rate": blend}, index=test["id"])

# keep the sample's row order and format, just fill in our numbers
sample.update(preds)
sample.to_csv("submission.csv", index=False)
print(sample.head(), np.isnan(sample.interest_rate).sum())
