# corpus: category=strong intent=HistGradientBoosting with native categorical support and engineered area/age features expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def engineer(df):
    out = df.drop(columns=["id"]).copy()
    out["TotalSF"] = out["Total_Bsmt_SF"] + out["Gr_Liv_Area"]
    out["HouseAge"] = out["Year_Sold"] - out["Year_Built"]
    out["Porch"] = out[["Open_Porch_SF", "Enclosed_Porch", "Three_season_porch", "Screen_Porch"]].sum(axis=1)
    return out

X = engineer(train.drop(columns=["Sale_Price"]))
Xt = engineer(test)
cat_cols = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
for c in cat_cols:
    cats = pd.Index(X[c].dropna().unique())
    X[c] = pd.Categorical(X[c], categories=cats)
    Xt[c] = pd.Categorical(Xt[c], categories=cats)

model = HistGradientBoostingRegressor(categorical_features="from_dtype", learning_rate=0.04, max_iter=700,
                                      max_leaf_nodes=16, min_samples_leaf=12, random_state=0)
model.fit(X, np.log(train["Sale_Price"]))
pd.DataFrame({"id": test["id"], "Sale_Price": np.exp(model.predict(Xt))}).to_csv("submission.csv", index=False)
