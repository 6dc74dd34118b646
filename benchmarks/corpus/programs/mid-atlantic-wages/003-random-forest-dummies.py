# corpus: category=typical intent=RandomForestRegressor on get_dummies of train and test concatenated expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

all_data = pd.concat([train.drop("wage", axis=1), test], axis=0)
all_data = pd.get_dummies(all_data.drop("id", axis=1))
X_train = all_data[: len(train)]
X_test = all_data[len(train):]

rf = RandomForestRegressor(n_estimators=300, min_samples_leaf=5, random_state=0)
rf.fit(X_train, train["wage"])
pd.DataFrame({"id": test["id"], "wage": rf.predict(X_test)}).to_csv("submission.csv", index=False)
