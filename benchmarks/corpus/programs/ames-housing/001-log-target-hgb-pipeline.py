# corpus: category=strong intent=log1p target, one-hot ColumnTransformer and HistGradientBoostingRegressor, expm1 back expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

y = np.log1p(train["Sale_Price"])
X = train.drop(columns=["id", "Sale_Price"])
X_test = test.drop(columns=["id"])

for df in (X, X_test):
    df["Total_SF"] = df["Total_Bsmt_SF"] + df["First_Flr_SF"] + df["Second_Flr_SF"]
    df["Age"] = df["Year_Sold"] - df["Year_Built"]
    df["Remod_Age"] = df["Year_Sold"] - df["Year_Remod_Add"]
    df["Baths"] = df["Full_Bath"] + 0.5 * df["Half_Bath"] + df["Bsmt_Full_Bath"] + 0.5 * df["Bsmt_Half_Bath"]

cat_cols = X.select_dtypes(exclude="number").columns.tolist()
num_cols = X.select_dtypes(include="number").columns.tolist()
pre = ColumnTransformer([
    ("cat", OneHotEncoder(handle_unknown="ignore", min_frequency=10, sparse_output=False), cat_cols),
    ("num", "passthrough", num_cols),
])
model = Pipeline([
    ("pre", pre),
    ("hgb", HistGradientBoostingRegressor(learning_rate=0.05, max_iter=400, max_leaf_nodes=20,
                                          min_samples_leaf=15, l2_regularization=0.5, random_state=0)),
])
scores = cross_val_score(model, X, y, cv=KFold(3, shuffle=True, random_state=0), scoring="neg_root_mean_squared_error")
print("CV RMSLE: %.4f" % -scores.mean())

model.fit(X, y)
pred = np.expm1(model.predict(X_test))
pd.DataFrame({"id": test["id"], "Sale_Price": pred}).to_csv("submission.csv", index=False)
