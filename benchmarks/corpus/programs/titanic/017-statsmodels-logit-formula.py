# corpus: category=unusual intent=statsmodels formula logit with a sex by class interaction and imputed age expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
med = train["age"].median()
for df in (train, test):
    df["age_missing"] = df["age"].isna().astype(int)
    df["age"] = df["age"].fillna(med)
fit = smf.logit("survived ~ C(sex) * C(passengerClass) + age + age_missing", data=train).fit(disp=0)
print(fit.params)
p = np.asarray(fit.predict(test))
pd.DataFrame({"id": test["id"], "survived": (p > 0.5).astype(int)}).to_csv("submission.csv", index=False)
