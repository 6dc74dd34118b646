# corpus: category=strong intent=blend of ridge on one-hot and HistGradientBoosting, both on log price expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler, OrdinalEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
y = np.log1p(train.Sale_Price.values)
feats = [c for c in test.columns if c != "id"]
cats = [c for c in feats if not pd.api.types.is_numeric_dtype(train[c])]
nums = [c for c in feats if c not in cats]

def prep(df):
    df = df[feats].copy()
    df[cats] = df[cats].fillna("None")
    for c in ["Lot_Area", "Gr_Liv_Area", "First_Flr_SF"]:
        df[c] = np.log1p(df[c])
    return df

Xtr, Xte = prep(train), prep(test)

ridge = make_pipeline(
    ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), cats), ("sc", StandardScaler(), nums)]),
    RidgeCV(alphas=np.logspace(-1, 2.5, 15)),
)
hgb = make_pipeline(
    ColumnTransformer([("oe", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), cats)], remainder="passthrough"),
    HistGradientBoostingRegressor(max_iter=500, learning_rate=0.05, min_samples_leaf=10, random_state=1),
)
ridge.fit(Xtr, y)
hgb.fit(Xtr, y)
pred = np.expm1(0.5 * ridge.predict(Xte) + 0.5 * hgb.predict(Xte))
pd.DataFrame({"id": test.id, "Sale_Price": pred}).to_csv("submission.csv", index=False)
print(pd.Series(pred).describe())
