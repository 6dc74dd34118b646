# corpus: category=unusual intent=method chaining with .assign for features, gradient boosting, sub.insert for the id column expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

def build(df):
    return (df.assign(total_sf=lambda d: d.Total_Bsmt_SF + d.Gr_Liv_Area,
                      age=lambda d: d.Year_Sold - d.Year_Built,
                      remod=lambda d: (d.Year_Remod_Add != d.Year_Built).astype(int),
                      baths=lambda d: d.Full_Bath + d.Half_Bath * 0.5)
              .select_dtypes("number")
              .drop(columns=["id", "Sale_Price"], errors="ignore"))

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X, Xt = build(train), build(test)
gbr = GradientBoostingRegressor(n_estimators=500, learning_rate=0.05, max_depth=4, subsample=0.8, random_state=2)
gbr.fit(X, np.log(train.Sale_Price))

sub = pd.DataFrame({"Sale_Price": np.exp(gbr.predict(Xt[X.columns]))})
sub.insert(0, "id", test.id)
sub.to_csv("submission.csv", index=False)
