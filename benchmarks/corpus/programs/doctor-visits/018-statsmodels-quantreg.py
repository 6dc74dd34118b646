# corpus: category=unusual intent=statsmodels QuantReg median regression (MAE-optimal linear model) expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["lncoins", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp"]
X = sm.add_constant(train[cols], has_constant="add")
Xt = sm.add_constant(test[cols], has_constant="add")
res = sm.QuantReg(train["mdvis"], X).fit(q=0.5, max_iter=5000)
pred = np.clip(res.predict(Xt), 0, None)
pd.DataFrame({"id": test["id"], "mdvis": np.asarray(pred)}).to_csv("submission.csv", index=False)
