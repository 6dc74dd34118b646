# corpus: category=weak intent=one-feature linear regression on living area expected=low
import pandas as pd
from sklearn.linear_model import LinearRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
lr = LinearRegression().fit(train[["Gr_Liv_Area"]], train["Sale_Price"])
print("coef", lr.coef_, lr.intercept_)
pred = lr.predict(test[["Gr_Liv_Area"]]).clip(min=10000)
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
