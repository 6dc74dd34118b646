# corpus: category=typical intent=random forest on raw price with get_dummies on the concatenated frame expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

all_data = pd.concat([train.drop("price", axis=1), test])
all_data = pd.get_dummies(all_data, columns=["cut", "color", "clarity"])
X = all_data[: len(train)].drop("id", axis=1)
X_test = all_data[len(train):].drop("id", axis=1)

rf = RandomForestRegressor(n_estimators=200, random_state=42)
rf.fit(X, train["price"])
preds = rf.predict(X_test)

pd.DataFrame({"id": test["id"], "price": preds}).to_csv("submission.csv", index=False)
print("done", preds[:5])
