# corpus: category=typical intent=default logistic regression in a ColumnTransformer pipeline (impute, scale, one-hot) expected=ok
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

target = "Status"
categorical = ["Home", "Marital", "Records", "Job"]
numeric = [c for c in train.columns if c not in categorical + ["id", target]]

preprocess = ColumnTransformer([
    ("num", Pipeline([("imp", SimpleImputer(strategy="median")), ("sc", StandardScaler())]), numeric),
    ("cat", Pipeline([("imp", SimpleImputer(strategy="most_frequent")),
                      ("oh", OneHotEncoder(handle_unknown="ignore"))]), categorical),
])
clf = Pipeline([("prep", preprocess), ("lr", LogisticRegression(max_iter=1000))])

scores = cross_val_score(clf, train[numeric + categorical], train[target], cv=5, scoring="roc_auc")
print("AUC %.4f +- %.4f" % (scores.mean(), scores.std()))

clf.fit(train[numeric + categorical], train[target])
preds = clf.predict_proba(test[numeric + categorical])[:, 1]
pd.DataFrame({"id": test.id, "Status": preds}).to_csv("submission.csv", index=False)
