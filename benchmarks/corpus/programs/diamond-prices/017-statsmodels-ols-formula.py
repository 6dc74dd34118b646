# corpus: category=unusual intent=statsmodels OLS formula on log price with log carat splines-by-hand and categorical grades, smearing correction expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for df in [train, test]:
    df["lc"] = np.log(df["carat"])
    df["lc2"] = df["lc"] ** 2
    df["big"] = np.clip(df["lc"] - np.log(1.0), 0, None)

train["lp"] = np.log(train["price"])
ols = smf.ols("lp ~ lc + lc2 + big + C(cut) + C(color) + C(clarity) + depth + table", data=train).fit()
print(ols.rsquared, ols.params.head())

smear = np.mean(np.exp(ols.resid))
test["price"] = np.exp(ols.predict(test)) * smear
test.loc[:, ["id", "price"]].to_csv("submission.csv", index=False)
