# corpus: category=strong intent=logistic regression with a cubic spline on balance, scaled income and student flag, C tuned by CV AUC expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, SplineTransformer, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["student", "balance", "income"]

pre = ColumnTransformer([
    ("balance", SplineTransformer(n_knots=6, degree=3), ["balance"]),
    ("income", StandardScaler(), ["income"]),
    ("student", OneHotEncoder(drop="if_binary"), ["student"]),
])
clf = Pipeline([
    ("pre", pre),
    ("lr", LogisticRegressionCV(Cs=np.logspace(-2, 3, 11), cv=StratifiedKFold(5, shuffle=True, random_state=0),
                                scoring="roc_auc", max_iter=3000)),
])
clf.fit(train[features], train["default"])
lr = clf.named_steps["lr"]
print("best C", lr.C_[0], "cv auc", lr.scores_[1].mean(axis=0).max())

proba = clf.predict_proba(test[features])[:, 1]
pd.DataFrame({"id": test["id"], "default": proba}).to_csv("submission.csv", index=False)
