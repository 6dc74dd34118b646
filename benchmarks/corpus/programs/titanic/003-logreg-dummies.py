# corpus: category=typical intent=logistic regression on dummies with median age expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
med = train["age"].median()
data = pd.concat([train, test], sort=False)
data["age"] = data["age"].fillna(med)
data = pd.get_dummies(data, columns=["sex", "passengerClass"], drop_first=True, dtype=int)
tr = data[data["survived"].notna()]
te = data[data["survived"].isna()]
features = [c for c in data.columns if c not in ("id", "survived")]
lr = LogisticRegression(max_iter=1000).fit(tr[features], tr["survived"].astype(int))
pd.DataFrame({"id": te["id"], "survived": lr.predict(te[features])}).to_csv("submission.csv", index=False)
