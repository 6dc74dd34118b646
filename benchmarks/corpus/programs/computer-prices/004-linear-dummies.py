# corpus: category=typical intent=ordinary least squares with dummies on the raw price expected=ok
import pandas as pd
from sklearn.linear_model import LinearRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
all_data = pd.get_dummies(pd.concat([train, test]), columns=["cd", "multi", "premium"], drop_first=True)
tr, te = all_data[all_data.price.notna()], all_data[all_data.price.isna()]
cols = [c for c in all_data.columns if c not in ("id", "price")]
lin = LinearRegression().fit(tr[cols], tr["price"])
pred = lin.predict(te[cols])
print("negative predictions:", (pred < 0).sum())
pd.DataFrame({"id": te["id"], "price": pred}).to_csv("submission.csv", index=False)
