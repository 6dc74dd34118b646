# corpus: category=strong intent=average of a calibrated random forest and a scaled multinomial logistic regression expected=ok
import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    dt = pd.to_datetime(df["date"])
    df["month_sin"] = np.sin(2 * np.pi * dt.dt.month / 12)
    df["month_cos"] = np.cos(2 * np.pi * dt.dt.month / 12)
    df["year"] = dt.dt.year
    df["log_precip"] = np.log1p(df["precipitation"])
features = ["precipitation", "log_precip", "temp_max", "temp_min", "wind", "month_sin", "month_cos", "year"]

rf = CalibratedClassifierCV(RandomForestClassifier(n_estimators=300, min_samples_leaf=3, random_state=0), cv=3, method="isotonic")
lr = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=3000))
rf.fit(train[features], train["weather"])
lr.fit(train[features], train["weather"])
assert list(rf.classes_) == list(lr.classes_)
p = 0.5 * rf.predict_proba(test[features]) + 0.5 * lr.predict_proba(test[features])
p = np.clip(p, 1e-3, 1)
p = p / p.sum(axis=1, keepdims=True)
sub = pd.DataFrame(p, columns=rf.classes_)
sub["id"] = test["id"].values
sub[["id"] + list(rf.classes_)].to_csv("submission.csv", index=False)
