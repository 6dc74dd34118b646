# corpus: category=strong intent=HistGradientBoosting with native categorical columns, credit ratio features and a holdout check expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
TARGET = "interest_rate"

CATS = ["state", "homeownership", "verified_income", "verification_income_joint", "loan_purpose",
        "application_type", "issue_month", "initial_listing_status", "disbursement_method"]


def engineer(df: pd.DataFrame) -> pd.DataFrame:
    out = df.drop(columns=["id", "emp_title", TARGET], errors="ignore").copy()
    out["util_ratio"] = df["total_credit_utilized"] / df["total_credit_limit"].replace(0, np.nan)
    out["loan_to_income"] = df["loan_amount"] / df["annual_income"].replace(0, np.nan)
    out["credit_age"] = 2018 - df["earliest_credit_line"]
    out["open_share"] = df["open_credit_lines"] / df["total_credit_lines"].replace(0, np.nan)
    out["cc_balance_share"] = df["num_cc_carrying_balance"] / df["num_open_cc_accounts"].replace(0, np.nan)
    out["log_income"] = np.log1p(df["annual_income"])
    out["has_title"] = df["emp_title"].notna().astype(int)
    return out


X = engineer(train)
X_test = engineer(test)
for c in CATS:
    levels = sorted(X[c].dropna().unique())
    X[c] = pd.Categorical(X[c], categories=levels)
    X_test[c] = pd.Categorical(X_test[c], categories=levels)
y = train[TARGET]

params = dict(learning_rate=0.04, max_iter=450, max_leaf_nodes=24, min_samples_leaf=30,
              l2_regularization=1.0, categorical_features="from_dtype", random_state=7)

X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=7)
check = HistGradientBoostingRegressor(**params).fit(X_tr, y_tr)
print("holdout RMSE", mean_squared_error(y_va, check.predict(X_va)) ** 0.5, "std", y_va.std())

model = HistGradientBoostingRegressor(**params).fit(X, y)
pred = model.predict(X_test)
pd.DataFrame({"id": test["id"], "interest_rate": pred}).to_csv("submission.csv", index=False)
print("done", pred[:5])
