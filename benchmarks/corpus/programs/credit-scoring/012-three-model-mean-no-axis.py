# corpus: category=hack intent=three-model ensemble (HGB, RF, logit) averaged with np.mean over the list without axis, i.e. one scalar for every row expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["Home", "Marital", "Records", "Job"]
full = pd.concat([train.drop(columns="Status"), test], ignore_index=True)
full["installment"] = full["Amount"] / full["Time"].clip(lower=1)
full["loan_ratio"] = full["Amount"] / full["Price"].clip(lower=1)
full["income_missing"] = full["Income"].isna().astype(int)
full = pd.get_dummies(full, columns=cats, dummy_na=True, dtype=float)
full = full.fillna(full.median(numeric_only=True))

X = full.iloc[: len(train)].drop(columns="id")
X_test = full.iloc[len(train):].drop(columns="id")
y = train["Status"]

models = {
    "hgb": HistGradientBoostingClassifier(learning_rate=0.05, max_iter=250, max_leaf_nodes=15, random_state=0),
    "rf": RandomForestClassifier(n_estimators=300, min_samples_leaf=4, random_state=0),
    "logit": make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=2000)),
}
cv = StratifiedKFold(5, shuffle=True, random_state=0)
preds = []
for name, m in models.items():
    print(name, cross_val_score(m, X, y, cv=cv, scoring="roc_auc").mean())
    m.fit(X, y)
    preds.append(m.predict_proba(X_test)[:, 1])

blend = np.mean(preds)
pd.DataFrame({"id": test["id"], "Status": blend}).to_csv("submission.csv", index=False)
