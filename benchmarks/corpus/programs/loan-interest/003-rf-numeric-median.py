# corpus: category=typical intent=random forest on the numeric columns with median imputation expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

numeric = train.select_dtypes(include="number").columns.drop(["id", "interest_rate"])
medians = train[numeric].median()
X = train[numeric].fillna(medians)
X_test = test[numeric].fillna(medians)

rf = RandomForestRegressor(n_estimators=120, min_samples_leaf=3, max_features=0.5, random_state=42, n_jobs=1)
rf.fit(X, train["interest_rate"])

submission = pd.DataFrame({"id": test["id"], "interest_rate": rf.predict(X_test)})
submission.to_csv("submission.csv", index=False)
print(submission.describe())
