# corpus: category=unusual intent=statsmodels formula OLS on log wage with a Duan smearing back-transform expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
model = smf.ols("np.log(wage) ~ education + experience + I(experience**2) + I(experience**3)"
                " + C(ethnicity) + C(smsa) + C(region) + C(parttime) + C(parttime):experience", data=train).fit()
print(model.summary().tables[1])
smear = np.mean(np.exp(model.resid))
# RMSLE is on log scale, so the plain exp is closer to optimal than the mean-corrected one
pred = np.exp(model.predict(test))
print("smearing factor (not applied)", smear)
pd.DataFrame({"id": test["id"], "wage": np.asarray(pred)}).to_csv("submission.csv", index=False)
