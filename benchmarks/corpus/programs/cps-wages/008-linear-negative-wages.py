# corpus: category=bug intent=plain linear regression on raw wages with part-time dummies; low rows can go negative under RMSLE expected=fail
import pandas as pd
from sklearn.linear_model import LinearRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="wage"), test]), drop_first=True, dtype=float)
full["edu_pt"] = full["education"] * full["parttime_yes"]
full["exp_pt"] = full["experience"] * full["parttime_yes"]
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
lr = LinearRegression().fit(X, train["wage"])
pred = lr.predict(Xt)
print("min prediction", pred.min())
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
