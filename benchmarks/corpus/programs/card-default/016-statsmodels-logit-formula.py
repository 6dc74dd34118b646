# corpus: category=unusual intent=statsmodels formula Logit with balance, income in thousands and C(student) expected=ok
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

train["income_k"] = train["income"] / 1000
test["income_k"] = test["income"] / 1000

result = smf.logit("default ~ balance + income_k + C(student)", data=train).fit(disp=0)
print(result.params)
pd.DataFrame({"id": test["id"], "default": result.predict(test).to_numpy()}).to_csv("submission.csv", index=False)
