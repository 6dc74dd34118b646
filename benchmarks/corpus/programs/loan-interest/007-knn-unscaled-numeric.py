# corpus: category=weak intent=KNN regressor on raw unscaled numeric features (income and credit limits dominate) expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cols = ["annual_income", "debt_to_income", "total_credit_limit", "total_credit_utilized", "loan_amount",
        "term", "inquiries_last_12m", "open_credit_lines", "delinq_2y", "earliest_credit_line"]
X = train[cols].fillna(0)
X_test = test[cols].fillna(0)

knn = KNeighborsRegressor(n_neighbors=15)
knn.fit(X, train.interest_rate)
test["interest_rate"] = knn.predict(X_test)
test[["id", "interest_rate"]].to_csv("submission.csv", index=False)
