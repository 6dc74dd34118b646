# corpus: category=unusual intent=dict of QDA / GaussianNB / logistic candidates, best by CV AUC, written with np.savetxt expected=ok
import numpy as np
import pandas as pd
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

encode = lambda d: d.assign(student=d["student"].map({"Yes": 1.0, "No": 0.0}))[["balance", "income", "student"]]
X, X_test = encode(train).to_numpy(), encode(test).to_numpy()
y = train["default"].to_numpy()

candidates = {
    "qda": make_pipeline(StandardScaler(), QuadraticDiscriminantAnalysis(reg_param=0.05)),
    "gnb": GaussianNB(),
    "logit": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
}
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
results = {name: cross_val_score(est, X, y, cv=cv, scoring="roc_auc").mean() for name, est in candidates.items()}
for name, auc in sorted(results.items(), key=lambda kv: -kv[1]):
    print(f"{name:6s} {auc:.4f}")

best = max(results, key=results.get)
proba = candidates[best].fit(X, y).predict_proba(X_test)[:, 1]
np.savetxt("submission.csv", np.c_[test["id"].to_numpy(), proba], fmt=("%d", "%.8f"),
           delimiter=",", header="id,default", comments="")
