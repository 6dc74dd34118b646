# corpus: category=strong intent=multinomial logistic regression on scaled numerics plus one-hot descriptors, C picked by CV log loss expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, QuantileTransformer, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

cat_cols = ["apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]
num_cols = [c for c in test.columns if c not in cat_cols + ["id"]]

def build(C):
    prep = ColumnTransformer([
        ("num", Pipeline([("q", QuantileTransformer(n_quantiles=200, output_distribution="normal")),
                          ("sc", StandardScaler())]), num_cols),
        ("cat", OneHotEncoder(handle_unknown="ignore"), cat_cols),
    ])
    return Pipeline([("prep", prep), ("lr", LogisticRegression(C=C, max_iter=3000))])

X, y = train[cat_cols + num_cols], train["species"]
cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
scores = {}
for C in [0.1, 0.3, 1.0]:
    scores[C] = -cross_val_score(build(C), X, y, cv=cv, scoring="neg_log_loss").mean()
    print("C", C, "logloss", round(scores[C], 4))
best_C = min(scores, key=scores.get)

model = build(best_C).fit(X, y)
proba = pd.DataFrame(model.predict_proba(test[cat_cols + num_cols]), columns=model.classes_)
sub = pd.concat([test[["id"]], proba[sample.columns[1:]]], axis=1)
sub.to_csv("submission.csv", index=False)
