# corpus: category=unusual intent=statsmodels Logit on five standardised "worst" and "mean" features expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["worst radius", "worst texture", "worst concave points", "mean smoothness", "area error"]
mu, sd = train[cols].mean(), train[cols].std()
X = sm.add_constant((train[cols] - mu) / sd)
Xt = sm.add_constant((test[cols] - mu) / sd, has_constant="add")
res = sm.Logit(train["target"], X).fit(disp=0, method="bfgs", maxiter=500)
print(res.params)
p = np.clip(np.asarray(res.predict(Xt)), 1e-4, 1 - 1e-4)
pd.DataFrame({"id": test["id"], "target": p}).to_csv("submission.csv", index=False)
