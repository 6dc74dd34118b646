# corpus: category=unusual intent=statsmodels MNLogit on standardised weather measurements, columns mapped from category codes expected=ok
import numpy as np
import pandas as pd
import statsmodels.api as sm

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
mu, sd = train[cols].mean(), train[cols].std()

def X_of(df):
    X = (df[cols] - mu) / sd
    X["wet"] = (df["precipitation"] > 0).astype(float)
    return sm.add_constant(X, has_constant="add")

y = pd.Categorical(train["weather"])
res = sm.MNLogit(y.codes, X_of(train)).fit(method="bfgs", maxiter=500, disp=0)
proba = np.asarray(res.predict(X_of(test)))
sub = pd.DataFrame(proba, columns=list(y.categories))
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
print(sub.head())
