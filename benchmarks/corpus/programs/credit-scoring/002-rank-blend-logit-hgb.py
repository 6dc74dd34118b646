# corpus: category=strong intent=rank-average blend of a log-feature logistic regression and gradient boosting, CV-checked expected=ok
import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
y = train["Status"].to_numpy()

cat_cols = ["Home", "Marital", "Records", "Job"]
skewed = ["Income", "Assets", "Debt", "Amount", "Price", "Expenses"]
plain = ["Seniority", "Time", "Age"]


def add_feats(df):
    df = df.copy()
    df["ratio_amount_price"] = df["Amount"] / df["Price"].clip(lower=1)
    df["installment"] = df["Amount"] / df["Time"].clip(lower=1)
    df["slack"] = df["Income"] - df["Expenses"] - df["installment"]
    return df


tr, te = add_feats(train), add_feats(test)
plain = plain + ["ratio_amount_price", "installment", "slack"]

log1p_pos = FunctionTransformer(lambda a: np.log1p(np.clip(a, 0, None)))
lin_prep = ColumnTransformer([
    ("skew", make_pipeline(SimpleImputer(strategy="median", add_indicator=True), log1p_pos, StandardScaler()), skewed),
    ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), plain),
    ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore")), cat_cols),
])
logit = make_pipeline(lin_prep, LogisticRegression(C=0.5, max_iter=2000))

tree_prep = ColumnTransformer([
    ("num", "passthrough", skewed + plain),
    ("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-1), cat_cols),
])
n_num = len(skewed + plain)
gbm = make_pipeline(tree_prep, HistGradientBoostingClassifier(
    learning_rate=0.05, max_iter=250, max_depth=4, min_samples_leaf=25, l2_regularization=0.5,
    categorical_features=list(range(n_num, n_num + len(cat_cols))), random_state=1))

feats = skewed + plain + cat_cols
oof = np.zeros((len(tr), 2))
for fit_idx, val_idx in StratifiedKFold(5, shuffle=True, random_state=3).split(tr, y):
    for j, m in enumerate((logit, gbm)):
        m.fit(tr.iloc[fit_idx][feats], y[fit_idx])
        oof[val_idx, j] = m.predict_proba(tr.iloc[val_idx][feats])[:, 1]
print("logit", roc_auc_score(y, oof[:, 0]), "gbm", roc_auc_score(y, oof[:, 1]),
      "blend", roc_auc_score(y, 0.4 * rankdata(oof[:, 0]) + 0.6 * rankdata(oof[:, 1])))

p_lin = logit.fit(tr[feats], y).predict_proba(te[feats])[:, 1]
p_gbm = gbm.fit(tr[feats], y).predict_proba(te[feats])[:, 1]
blend = (0.4 * rankdata(p_lin) + 0.6 * rankdata(p_gbm)) / len(te)
pd.DataFrame({"id": test["id"], "Status": blend}).to_csv("submission.csv", index=False)
