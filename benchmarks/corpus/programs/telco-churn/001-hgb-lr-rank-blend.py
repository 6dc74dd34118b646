# corpus: category=strong intent=ColumnTransformer with HistGradientBoosting and logistic regression, rank-averaged blend expected=ok
import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

target = "churn"
features = [c for c in train.columns if c not in ("id", target)]
cat_cols = [c for c in features if not pd.api.types.is_numeric_dtype(train[c])]
num_cols = [c for c in features if c not in cat_cols]

for df in (train, test):
    df["charges_per_month"] = df["total_charges"] / (df["tenure"] + 1)
num_cols = num_cols + ["charges_per_month"]

pre = ColumnTransformer([
    ("num", Pipeline([("imp", SimpleImputer(strategy="median")), ("sc", StandardScaler())]), num_cols),
    ("cat", OneHotEncoder(handle_unknown="ignore"), cat_cols),
])

lr = Pipeline([("pre", pre), ("clf", LogisticRegression(C=0.5, max_iter=2000))])
hgb = Pipeline([("pre", pre), ("clf", HistGradientBoostingClassifier(
    learning_rate=0.05, max_iter=300, max_leaf_nodes=15, min_samples_leaf=40, l2_regularization=1.0))])

X = train[num_cols + cat_cols]
y = train[target]
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=42)
for name, model in [("lr", lr), ("hgb", hgb)]:
    s = cross_val_score(model, X, y, cv=cv, scoring="roc_auc")
    print(name, "CV AUC %.4f +- %.4f" % (s.mean(), s.std()))

Xt = test[num_cols + cat_cols]
p_lr = lr.fit(X, y).predict_proba(Xt)[:, 1]
p_hgb = hgb.fit(X, y).predict_proba(Xt)[:, 1]
blend = 0.5 * rankdata(p_lr) / len(p_lr) + 0.5 * rankdata(p_hgb) / len(p_hgb)

pd.DataFrame({"id": test["id"], "churn": blend}).to_csv("submission.csv", index=False)
print("wrote", len(test), "rows")
