# corpus: category=bug intent=LeaveOneOut CV of logistic regression on 426 rows (wasteful but affordable here) expected=ok
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import LeaveOneOut, cross_val_predict
from sklearn.metrics import log_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=3000))
oof = cross_val_predict(model, X, train["target"], cv=LeaveOneOut(), method="predict_proba")[:, 1]
print("LOO log loss", log_loss(train["target"], oof))
model.fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": model.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
