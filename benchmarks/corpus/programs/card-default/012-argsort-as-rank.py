# corpus: category=hack intent=CV-checked logistic model whose scores are "rank-normalised" with a single argsort, which gives sort indices rather than ranks expected=low
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def design(df):
    return np.column_stack([df["balance"], np.log(df["income"]), (df["student"] == "Yes").astype(float)])

X, X_test, y = design(train), design(test), train["default"].to_numpy()
model = make_pipeline(StandardScaler(), PolynomialFeatures(2, include_bias=False), StandardScaler(),
                      LogisticRegression(C=0.3, max_iter=2000))
auc = cross_val_score(model, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring="roc_auc")
print("CV AUC %.4f +- %.4f" % (auc.mean(), auc.std()))
model.fit(X, y)
p = model.predict_proba(X_test)[:, 1]

# AUC only looks at the ordering: submit ranks scaled to [0, 1] so calibration does not matter
ranks = p.argsort() / (len(p) - 1)
pd.DataFrame({"id": test["id"], "default": ranks}).to_csv("submission.csv", index=False)
