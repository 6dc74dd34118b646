# corpus: category=bug intent=linear regression; train NaNs filled with means but test passed in raw so predict raises on NaN expected=fail
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

features = ["emp_length", "annual_income", "debt_to_income", "delinq_2y", "inquiries_last_12m",
            "total_credit_lines", "open_credit_lines", "total_credit_limit", "total_credit_utilized",
            "accounts_opened_24m", "months_since_last_credit_inquiry", "num_accounts_120d_past_due",
            "account_never_delinq_percent", "public_record_bankrupt", "loan_amount", "term"]

X_train = train[features].fillna(train[features].mean())
y_train = train["interest_rate"]

lr = LinearRegression()
lr.fit(X_train, y_train)
print("train RMSE", mean_squared_error(y_train, lr.predict(X_train)) ** 0.5)

X_test = test[features]
test_pred = lr.predict(X_test)

pd.DataFrame({"id": test["id"], "interest_rate": test_pred}).to_csv("submission.csv", index=False)
