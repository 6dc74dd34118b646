# corpus: category=unusual intent=statsmodels formula GLM Poisson, then the conditional median of the fitted Poisson expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy.stats import poisson

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
glm = smf.glm("mdvis ~ lncoins + idp + lpi + fmde + physlm + disea + hlthg + hlthf + hlthp",
              data=train, family=sm.families.Poisson()).fit()
mu = np.asarray(glm.predict(test))
pred = poisson.median(mu)  # MAE rewards the median, not the mean
pd.DataFrame({"id": test["id"], "mdvis": pred}).to_csv("submission.csv", index=False)
