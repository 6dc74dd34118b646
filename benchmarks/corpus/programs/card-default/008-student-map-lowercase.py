# corpus: category=bug intent=student mapped with lowercase keys, every value becomes NaN and LogisticRegression refuses the input expected=fail
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for df in (train, test):
    df["student"] = df["student"].map({"yes": 1, "no": 0})
    df["log_income"] = np.log(df["income"])

cols = ["balance", "log_income", "student"]
scaler = StandardScaler()
Xtr = scaler.fit_transform(train[cols])
Xte = scaler.transform(test[cols])

clf = LogisticRegression(C=0.5, max_iter=500)
clf.fit(Xtr, train["default"])
pd.DataFrame({"id": test["id"], "default": clf.predict_proba(Xte)[:, 1]}).to_csv("submission.csv", index=False)
