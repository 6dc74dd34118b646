# corpus: category=hack intent=random forest "calibrated" with a temperature fitted on its own training-set probabilities, which sharpens it to near one-hot expected=low
import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
classes = list(sample.columns[1:])

cats = ["apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]
X = pd.get_dummies(train.drop(columns=["id", "species"]), columns=cats, dtype=float)
X_test = pd.get_dummies(test.drop(columns=["id"]), columns=cats, dtype=float).reindex(columns=X.columns, fill_value=0.0)
y_idx = train["species"].map({c: i for i, c in enumerate(classes)}).to_numpy()

rf = RandomForestClassifier(n_estimators=400, min_samples_leaf=1, random_state=0).fit(X, train["species"])
P_train = pd.DataFrame(rf.predict_proba(X), columns=rf.classes_)[classes].to_numpy()


def scaled(P, T):
    logits = np.log(np.clip(P, 1e-6, 1)) / T
    logits -= logits.max(axis=1, keepdims=True)
    E = np.exp(logits)
    return E / E.sum(axis=1, keepdims=True)


def nll(T):
    return -np.mean(np.log(scaled(P_train, T)[np.arange(len(y_idx)), y_idx]))


T = minimize_scalar(nll, bounds=(0.05, 5.0), method="bounded").x
print("temperature", T)

P_test = pd.DataFrame(rf.predict_proba(X_test), columns=rf.classes_)[classes].to_numpy()
sub = pd.DataFrame(scaled(P_test, T), columns=classes)
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
