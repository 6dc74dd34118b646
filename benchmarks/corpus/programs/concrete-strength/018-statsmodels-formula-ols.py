# corpus: category=unusual intent=statsmodels formula OLS with np.log(age), water/cement ratio and interactions expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
formula = ("compressive_strength ~ np.log(age) + I(np.log(age)**2) + I(water/cement) + I((water/cement)**2)"
           " + cement + blast_furnace_slag + fly_ash + superplasticizer + water"
           " + np.log(age):I(water/cement) + np.log(age):blast_furnace_slag + np.log(age):fly_ash")
fit = smf.ols(formula, data=train).fit()
print(fit.rsquared_adj)
pd.DataFrame({"id": test["id"], "compressive_strength": fit.predict(test).to_numpy()}).to_csv("submission.csv", index=False)
