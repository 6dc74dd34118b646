# corpus: category=bug intent=reasonable HGB model but the submission header says ID instead of id expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cat_cols = ["state", "homeownership", "verified_income", "loan_purpose", "application_type",
            "initial_listing_status", "disbursement_method", "issue_month"]
for col in cat_cols:
    train[col] = train[col].astype("category")
    test[col] = pd.Categorical(test[col], categories=train[col].cat.categories)

feats = [c for c in train.columns if c not in ["id", "interest_rate", "emp_title", "verification_income_joint"]]
reg = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, categorical_features="from_dtype", random_state=3)
reg.fit(train[feats], train["interest_rate"])

sub = pd.DataFrame({"ID": test["id"], "interest_rate": reg.predict(test[feats])})
sub.to_csv("submission.csv", index=False)
print(sub.head())
