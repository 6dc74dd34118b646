# corpus: category=typical intent=ordinary least squares on one-hot categoricals plus age and age squared expected=ok
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import cross_val_predict

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cat_cols = ["maritl", "race", "education", "jobclass", "health", "health_ins"]

X = pd.get_dummies(train[["year", "age"] + cat_cols], columns=cat_cols, drop_first=True, dtype=float)
X_test = pd.get_dummies(test[["year", "age"] + cat_cols], columns=cat_cols, drop_first=True, dtype=float)
X_test = X_test.reindex(columns=X.columns, fill_value=0.0)
X["age2"] = X["age"] ** 2
X_test["age2"] = X_test["age"] ** 2

ols = LinearRegression()
print("CV MAE", mean_absolute_error(train["wage"], cross_val_predict(ols, X, train["wage"], cv=5)))
ols.fit(X, train["wage"])
pd.DataFrame({"id": test["id"], "wage": ols.predict(X_test)}).to_csv("submission.csv", index=False)
