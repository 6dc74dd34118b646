# corpus: category=bug intent=plain LinearRegression on raw price with one-hot grades; small stones get negative prices expected=fail
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = pd.get_dummies(train.drop(columns=["id", "price"]), drop_first=True)
X_test = pd.get_dummies(test.drop(columns=["id"]), drop_first=True).reindex(columns=X.columns, fill_value=0)

lr = LinearRegression()
lr.fit(X, train["price"])
print("train R2:", r2_score(train["price"], lr.predict(X)))

pd.DataFrame({"id": test["id"], "price": lr.predict(X_test)}).to_csv("submission.csv", index=False)
