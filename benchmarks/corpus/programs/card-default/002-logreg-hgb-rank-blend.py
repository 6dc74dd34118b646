# corpus: category=strong intent=rank-average of scaled logistic regression and a monotone HistGradientBoosting, both checked by stratified CV AUC expected=ok
import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")


def frame(df):
    return pd.DataFrame({
        "balance": df["balance"],
        "income": df["income"] / 1000.0,
        "student": (df["student"] == "Yes").astype(float),
    })


X, X_test, y = frame(train), frame(test), train["default"].to_numpy()


def make_models():
    return {
        "lr": make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000)),
        "hgb": HistGradientBoostingClassifier(learning_rate=0.05, max_iter=200, max_leaf_nodes=8,
                                              min_samples_leaf=40, monotonic_cst=[1, 0, 0], random_state=0),
    }


oof = {k: np.zeros(len(y)) for k in make_models()}
for tr, va in StratifiedKFold(5, shuffle=True, random_state=1).split(X, y):
    for name, m in make_models().items():
        m.fit(X.iloc[tr], y[tr])
        oof[name][va] = m.predict_proba(X.iloc[va])[:, 1]
for name, p in oof.items():
    print(name, round(roc_auc_score(y, p), 4))
blend_oof = 0.6 * rankdata(oof["lr"]) + 0.4 * rankdata(oof["hgb"])
print("blend", round(roc_auc_score(y, blend_oof), 4))

final = {name: m.fit(X, y).predict_proba(X_test)[:, 1] for name, m in make_models().items()}
score = 0.6 * rankdata(final["lr"]) + 0.4 * rankdata(final["hgb"])
score = score / score.max()
pd.DataFrame({"id": test["id"], "default": score}).to_csv("submission.csv", index=False)
