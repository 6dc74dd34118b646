# corpus: category=weak intent=fully grown DecisionTreeRegressor on label-encoded features expected=low
import pandas as pd
from sklearn.tree import DecisionTreeRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

features = ["year", "age", "maritl", "race", "education", "jobclass", "health", "health_ins"]
for col in features[2:]:
    levels = {v: k for k, v in enumerate(sorted(train[col].unique()))}
    train[col] = train[col].map(levels)
    test[col] = test[col].map(levels).fillna(-1)

tree = DecisionTreeRegressor(random_state=0)
tree.fit(train[features], train["wage"])
pd.DataFrame({"id": test["id"], "wage": tree.predict(test[features])}).to_csv("submission.csv", index=False)
