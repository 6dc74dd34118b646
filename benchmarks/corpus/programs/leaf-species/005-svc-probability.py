# corpus: category=typical intent=RBF SVC with probability=True on scaled numerics and one-hot descriptors expected=ok
import pandas as pd
from sklearn.svm import SVC
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]
both = pd.get_dummies(pd.concat([train.drop(columns="species"), test], ignore_index=True), columns=cats, dtype=float)
X_all = both.drop(columns="id")
scaler = StandardScaler().fit(X_all.iloc[: len(train)])
X = scaler.transform(X_all.iloc[: len(train)])
X_test = scaler.transform(X_all.iloc[len(train):])

svc = SVC(C=10, gamma="scale", probability=True, random_state=0)
svc.fit(X, train["species"])
out = pd.DataFrame(svc.predict_proba(X_test), columns=svc.classes_)
out.insert(0, "id", test["id"].values)
out.to_csv("submission.csv", index=False)
