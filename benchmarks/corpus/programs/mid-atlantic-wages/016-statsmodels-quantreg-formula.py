# corpus: category=unusual intent=statsmodels median regression (QuantReg formula) with age polynomial and categorical terms expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

formula = ("wage ~ age + I(age ** 2) + year + C(education) + C(maritl) + C(race)"
           " + C(jobclass) + C(health) + C(health_ins)")
median_fit = smf.quantreg(formula, data=train).fit(q=0.5, max_iter=5000)
print(median_fit.params.round(2))

pred = np.asarray(median_fit.predict(test))
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
