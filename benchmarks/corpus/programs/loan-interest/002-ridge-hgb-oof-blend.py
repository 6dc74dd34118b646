# corpus: category=strong intent=ridge on one-hot plus HGB, blend weight picked on 5-fold out-of-fold RMSE expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
y = train["interest_rate"].to_numpy()

cat_cols = ["state", "homeownership", "verified_income", "verification_income_joint", "loan_purpose",
            "application_type", "issue_month", "initial_listing_status", "disbursement_method"]
drop = ["id", "interest_rate", "emp_title"]
num_cols = [c for c in train.columns if c not in drop + cat_cols]

for df in (train, test):
    df["util"] = df["total_credit_utilized"] / (df["total_credit_limit"] + 1)
    df["dti_loan"] = df["loan_amount"] / (df["annual_income"] + 1)
num_cols += ["util", "dti_loan"]
for c in cat_cols:
    train[c] = train[c].fillna("none")
    test[c] = test[c].fillna("none")

ridge = make_pipeline(
    ColumnTransformer([
        ("num", make_pipeline(SimpleImputer(strategy="median", add_indicator=True), StandardScaler()), num_cols),
        ("cat", OneHotEncoder(handle_unknown="ignore", min_frequency=10), cat_cols),
    ]),
    Ridge(alpha=10.0),
)
hgb = make_pipeline(
    ColumnTransformer([
        ("num", "passthrough", num_cols),
        ("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), cat_cols),
    ]),
    HistGradientBoostingRegressor(learning_rate=0.05, max_iter=300, max_leaf_nodes=20,
                                  min_samples_leaf=25, random_state=0),
)

feats = num_cols + cat_cols
oof = np.zeros((len(train), 2))
for tr, va in KFold(5, shuffle=True, random_state=0).split(train):
    for j, m in enumerate((ridge, hgb)):
        m.fit(train.iloc[tr][feats], y[tr])
        oof[va, j] = m.predict(train.iloc[va][feats])

best_w, best_rmse = 0.0, np.inf
for w in np.linspace(0, 1, 21):
    rmse = np.sqrt(np.mean((w * oof[:, 0] + (1 - w) * oof[:, 1] - y) ** 2))
    if rmse < best_rmse:
        best_w, best_rmse = w, rmse
print(f"ridge weight {best_w:.2f}  oof rmse {best_rmse:.3f}")

ridge.fit(train[feats], y)
hgb.fit(train[feats], y)
pred = best_w * ridge.predict(test[feats]) + (1 - best_w) * hgb.predict(test[feats])
pd.DataFrame({"id": test["id"], "interest_rate": pred}).to_csv("submission.csv", index=False)
