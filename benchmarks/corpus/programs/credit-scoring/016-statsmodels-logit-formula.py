# corpus: category=unusual intent=statsmodels formula Logit with log money terms and two categorical factors expected=ok
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

medians = train[["Income", "Assets", "Debt"]].median()


def tidy(df):
    return df.assign(
        Income=lambda d: d["Income"].fillna(medians["Income"]),
        Assets=lambda d: d["Assets"].fillna(medians["Assets"]),
        Debt=lambda d: d["Debt"].fillna(medians["Debt"]),
        Job=lambda d: d["Job"].fillna("fixed"),
        lincome=lambda d: np.log1p(d["Income"]),
        lassets=lambda d: np.log1p(d["Assets"]),
        lamount=lambda d: np.log1p(d["Amount"]),
        loan_ratio=lambda d: d["Amount"] / d["Price"].clip(lower=1),
    )


tr, te = tidy(train), tidy(test)
formula = ("Status ~ Seniority + Time + Age + Expenses + lincome + lassets + Debt + lamount + loan_ratio"
           " + C(Records) + C(Job)")
fit = smf.logit(formula, data=tr).fit(disp=0, maxiter=200)
print(fit.summary().tables[1])

pd.DataFrame({"id": te["id"], "Status": np.asarray(fit.predict(te))}).to_csv("submission.csv", index=False)
