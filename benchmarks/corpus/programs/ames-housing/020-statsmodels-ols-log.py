# corpus: category=unusual intent=statsmodels OLS with add_constant on log price and a handful of numeric features expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["Gr_Liv_Area", "Total_Bsmt_SF", "Garage_Cars", "Year_Built", "Year_Remod_Add", "Full_Bath",
        "Fireplaces", "Lot_Area", "TotRms_AbvGrd", "Longitude", "Latitude"]

def design(df):
    d = df[cols].astype(float).copy()
    d["Gr_Liv_Area"] = np.log(d["Gr_Liv_Area"])
    d["Lot_Area"] = np.log(d["Lot_Area"])
    return sm.add_constant(d, has_constant="add")

ols = sm.OLS(np.log(train["Sale_Price"]), design(train)).fit()
print(ols.rsquared)
pred = np.exp(ols.predict(design(test)))
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
