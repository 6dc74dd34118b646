# corpus: category=strong intent=relative price and catch features, blend of multinomial logistic regression and HGB expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.metrics import log_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
MODES = ["beach", "boat", "charter", "pier"]

def feats(df):
    X = df.drop(columns=["id", "mode"], errors="ignore").copy()
    X["log_income"] = np.log(X["income"])
    for m in MODES:
        X[f"rel_p_{m}"] = X[f"p{m}"] - X[[f"p{k}" for k in MODES]].mean(axis=1)
        X[f"ratio_{m}"] = X[f"c{m}"] / (X[f"p{m}"] + 1)
        X[f"p_over_inc_{m}"] = X[f"p{m}"] / X["income"] * 1000
    X["charter_minus_boat_p"] = X["pcharter"] - X["pboat"]
    X["charter_minus_boat_c"] = X["ccharter"] - X["cboat"]
    return X

X, Xt = feats(train), feats(test)
y = train["mode"]
lr = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=5000))
hgb = HistGradientBoostingClassifier(learning_rate=0.04, max_iter=200, max_depth=3, min_samples_leaf=20, l2_regularization=1.0, random_state=0)
cv = StratifiedKFold(5, shuffle=True, random_state=0)
oof = 0.5 * cross_val_predict(lr, X, y, cv=cv, method="predict_proba") + 0.5 * cross_val_predict(hgb, X, y, cv=cv, method="predict_proba")
print("blend CV log loss", log_loss(y, oof))
p = 0.5 * lr.fit(X, y).predict_proba(Xt) + 0.5 * hgb.fit(X, y).predict_proba(Xt)
sub = pd.DataFrame(p, columns=lr.classes_)
sub.insert(0, "id", test["id"])
sub[["id"] + MODES].to_csv("submission.csv", index=False)
