# corpus: category=typical intent=GradientBoostingRegressor on get_dummies of train+test concatenated, emp_title dropped expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n_train = len(train)

full = pd.concat([train.drop(columns="interest_rate"), test], ignore_index=True)
full = full.drop(columns=["id", "emp_title"])
full = pd.get_dummies(full, dummy_na=False)
full = full.fillna(-1)

X = full.iloc[:n_train]
X_test = full.iloc[n_train:]

gbr = GradientBoostingRegressor(n_estimators=250, max_depth=3, learning_rate=0.08, subsample=0.9, random_state=1)
gbr.fit(X, train["interest_rate"])
preds = gbr.predict(X_test)

pd.DataFrame({"id": test["id"].values, "interest_rate": preds}).to_csv("submission.csv", index=False)
print("wrote", len(preds))
