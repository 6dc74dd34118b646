# corpus: category=bug intent=LeaveOneOut CV on a small 258-row table with logistic regression (slow in principle, cheap here) expected=ok
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import LeaveOneOut, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
med = train[num].median()
X, Xt = train[num].fillna(med), test[num].fillna(med)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
acc = cross_val_score(model, X, train["species"], cv=LeaveOneOut())
print("LOO accuracy", acc.mean())
model.fit(X, train["species"])
sub = pd.DataFrame(model.predict_proba(Xt), columns=model.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
