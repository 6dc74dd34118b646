# corpus: category=typical intent=GradientBoostingClassifier on ordinal-encoded categoricals with holdout check expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import OrdinalEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cat_cols = train.select_dtypes(include="object").columns.tolist()
print("categorical:", cat_cols)
enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
train[cat_cols] = enc.fit_transform(train[cat_cols])
test[cat_cols] = enc.transform(test[cat_cols])

med = train["total_charges"].median()
train["total_charges"] = train["total_charges"].fillna(med)
test["total_charges"] = test["total_charges"].fillna(med)

X = train.drop(columns=["id", "churn"])
y = train["churn"]
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.2, random_state=1, stratify=y)
gbc = GradientBoostingClassifier(n_estimators=200, max_depth=3, learning_rate=0.05, random_state=1)
gbc.fit(X_tr, y_tr)
print("holdout AUC:", roc_auc_score(y_va, gbc.predict_proba(X_va)[:, 1]))

gbc.fit(X, y)
test_pred = gbc.predict_proba(test[X.columns])[:, 1]
pd.DataFrame({"id": test.id, "churn": test_pred}).to_csv("submission.csv", index=False)
