# corpus: category=typical intent=GradientBoostingRegressor on log1p target with LabelEncoder codes (alphabetical, not ordered) expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.preprocessing import LabelEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for col in ["cut", "color", "clarity"]:
    enc = LabelEncoder().fit(train[col])
    train[col] = enc.transform(train[col])
    test[col] = enc.transform(test[col])

features = ["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"]
model = GradientBoostingRegressor(n_estimators=300, max_depth=4, learning_rate=0.1, random_state=0)
model.fit(train[features], np.log1p(train["price"]))

sub = pd.DataFrame({"id": test["id"], "price": np.expm1(model.predict(test[features]))})
sub.to_csv("submission.csv", index=False)
