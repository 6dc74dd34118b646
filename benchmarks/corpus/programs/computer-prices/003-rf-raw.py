# corpus: category=typical intent=random forest on raw price with label-encoded yes/no columns expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.preprocessing import LabelEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for col in ["cd", "multi", "premium"]:
    le = LabelEncoder().fit(train[col])
    train[col] = le.transform(train[col])
    test[col] = le.transform(test[col])
X = train.drop(columns=["id", "price"])
rf = RandomForestRegressor(n_estimators=200, random_state=0).fit(X, train["price"])
pd.DataFrame({"id": test["id"], "price": rf.predict(test[X.columns])}).to_csv("submission.csv", index=False)
