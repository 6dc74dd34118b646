# corpus: category=strong intent=blend of regularised logistic regression and extra-trees probabilities, weights checked on a hold-out expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
class_cols = list(sample.columns[1:])

text_cols = [c for c in test.columns if train[c].dtype == "str"]
num_cols = [c for c in test.columns if c not in text_cols and c != "id"]
features = text_cols + num_cols


def logit():
    prep = make_column_transformer((StandardScaler(), num_cols), (OneHotEncoder(handle_unknown="ignore"), text_cols))
    return make_pipeline(prep, LogisticRegression(C=0.5, max_iter=4000))


def trees():
    prep = make_column_transformer(("passthrough", num_cols),
                                   (OneHotEncoder(handle_unknown="ignore", sparse_output=False), text_cols))
    return make_pipeline(prep, ExtraTreesClassifier(n_estimators=400, max_features=0.3, random_state=0))


def aligned(model, X):
    return pd.DataFrame(model.predict_proba(X), columns=model.classes_).reindex(columns=class_cols, fill_value=0).to_numpy()


tr, va = train_test_split(train, test_size=0.2, stratify=train["species"], random_state=0)
pl = aligned(logit().fit(tr[features], tr["species"]), va[features])
pt = aligned(trees().fit(tr[features], tr["species"]), va[features])
best = None
for w in [0.3, 0.5, 0.7]:
    loss = log_loss(va["species"], np.clip(w * pl + (1 - w) * pt, 1e-6, 1), labels=class_cols)
    print(w, round(loss, 4))
    if best is None or loss < best[1]:
        best = (w, loss)
w = best[0]

P = w * aligned(logit().fit(train[features], train["species"]), test[features]) + \
    (1 - w) * aligned(trees().fit(train[features], train["species"]), test[features])
P = np.clip(P, 1e-4, 1)
P /= P.sum(axis=1, keepdims=True)
sub = pd.DataFrame(P, columns=class_cols)
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
