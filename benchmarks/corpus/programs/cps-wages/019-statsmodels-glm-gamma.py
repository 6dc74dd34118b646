# corpus: category=unusual intent=statsmodels GLM with a Gamma family and log link on wages expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
glm = smf.glm("wage ~ education + experience + I(experience**2) + C(ethnicity) + C(smsa) + C(region) + C(parttime)",
              data=train, family=sm.families.Gamma(link=sm.families.links.Log())).fit()
print(glm.params)
pred = np.asarray(glm.predict(test))
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
