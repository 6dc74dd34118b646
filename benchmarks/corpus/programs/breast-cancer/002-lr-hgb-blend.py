# corpus: category=strong intent=average of scaled logistic regression and calibrated gradient boosting probabilities expected=ok
import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.metrics import log_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
y = train["target"]
lr = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=5000))
gb = CalibratedClassifierCV(HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_depth=3), cv=3, method="sigmoid")
oof = 0.5 * cross_val_predict(lr, X, y, cv=5, method="predict_proba")[:, 1] + 0.5 * cross_val_predict(gb, X, y, cv=5, method="predict_proba")[:, 1]
print("oof log loss", log_loss(y, oof))
p = 0.5 * lr.fit(X, y).predict_proba(test[X.columns])[:, 1] + 0.5 * gb.fit(X, y).predict_proba(test[X.columns])[:, 1]
pd.DataFrame({"id": test["id"], "target": p}).to_csv("submission.csv", index=False)
