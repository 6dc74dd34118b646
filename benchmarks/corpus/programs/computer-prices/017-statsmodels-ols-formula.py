# corpus: category=unusual intent=statsmodels formula OLS on log price with logs of hd/ram and trend interactions expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
fit = smf.ols("np.log(price) ~ speed + np.log(hd) + np.log(ram) + screen + C(cd) + C(multi) + C(premium) + ads"
              " + trend + I(trend**2) + np.log(hd):trend + np.log(ram):trend + speed:trend", data=train).fit()
print("R2", fit.rsquared)
pd.DataFrame({"id": test["id"], "price": np.exp(np.asarray(fit.predict(test)))}).to_csv("submission.csv", index=False)
