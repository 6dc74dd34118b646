# corpus: category=unusual intent=statsmodels formula Logit with categorical terms expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["total_charges"] = df["total_charges"].fillna(df["monthly_charges"] * df["tenure"])
    df["log_tenure"] = np.log1p(df["tenure"])

formula = ("churn ~ log_tenure + monthly_charges + senior_citizen + partner + dependents + paperless_billing"
           " + C(contract) + C(internet_service) + C(payment_method) + C(online_security) + C(tech_support)")
res = smf.logit(formula, data=train).fit(disp=0, maxiter=200)
print(res.summary().tables[0])
p = res.predict(test)
pd.DataFrame({"id": test["id"], "churn": np.asarray(p)}).to_csv("submission.csv", index=False)
