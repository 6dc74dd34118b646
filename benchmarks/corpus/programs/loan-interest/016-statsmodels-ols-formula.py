# corpus: category=unusual intent=statsmodels formula OLS with categorical terms, log income and rare purposes pooled expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

common = train["loan_purpose"].value_counts()
common = set(common[common >= 40].index)


def prepare(df):
    return df.assign(
        purpose=lambda d: d["loan_purpose"].where(d["loan_purpose"].isin(common), "other"),
        dti=lambda d: d["debt_to_income"].fillna(train["debt_to_income"].median()).clip(upper=60),
        inq_gap=lambda d: d["months_since_last_credit_inquiry"].fillna(36),
        util=lambda d: d["total_credit_utilized"] / d["total_credit_limit"].clip(lower=1),
        log_inc=lambda d: np.log1p(d["annual_income"]),
        log_limit=lambda d: np.log1p(d["total_credit_limit"]),
        never_delinq=lambda d: d["account_never_delinq_percent"],
        loan_k=lambda d: d["loan_amount"] / 1000,
    )


tr, te = prepare(train), prepare(test)
formula = ("interest_rate ~ C(term) + C(verified_income) + C(homeownership) + C(purpose) + C(issue_month)"
           " + log_inc + dti + util + log_limit + loan_k + inquiries_last_12m + accounts_opened_24m"
           " + inq_gap + never_delinq + num_historical_failed_to_pay + public_record_bankrupt + delinq_2y")
fit = smf.ols(formula, data=tr).fit()
print(fit.summary().tables[0])
print("R^2", fit.rsquared)

pred = np.asarray(fit.predict(te))
pred = np.where(np.isnan(pred), train["interest_rate"].mean(), pred)
pd.DataFrame({"id": test["id"], "interest_rate": pred}).to_csv("submission.csv", index=False)
