# corpus: category=typical intent=random forest on numeric columns with the raw price target expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num_features = [c for c in train.select_dtypes(include=["int64", "float64"]).columns if c not in ("id", "Sale_Price")]
print(len(num_features), "numeric features")

rf = RandomForestRegressor(n_estimators=200, random_state=42)
rf.fit(train[num_features], train["Sale_Price"])
submission = pd.DataFrame({"id": test["id"], "Sale_Price": rf.predict(test[num_features])})
submission.to_csv("submission.csv", index=False)
