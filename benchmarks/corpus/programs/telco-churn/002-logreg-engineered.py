# corpus: category=strong intent=logistic regression with engineered tenure and service-count features expected=ok
import pandas as pd
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n_train = len(train)

full = pd.concat([train.drop(columns=["churn"]), test], ignore_index=True)
full["total_charges"] = full["total_charges"].fillna(full["monthly_charges"] * full["tenure"])
full["log_tenure"] = np.log1p(full["tenure"])
full["new_customer"] = (full["tenure"] <= 6).astype(int)
services = ["online_security", "online_backup", "device_protection", "tech_support", "streaming_tv", "streaming_movies"]
full["n_services"] = sum((full[s] == "Yes").astype(int) for s in services)
full["avg_charge"] = full["total_charges"] / full["tenure"].clip(lower=1)

cats = [c for c in full.columns if full[c].dtype.kind == "O" or str(full[c].dtype) in ("str", "string")]
full = pd.get_dummies(full, columns=cats, drop_first=True, dtype=float)

X_all = full.drop(columns=["id"])
scaler = StandardScaler()
X_all = pd.DataFrame(scaler.fit_transform(X_all), columns=X_all.columns)
X, X_test = X_all.iloc[:n_train], X_all.iloc[n_train:]
y = train["churn"].values

model = LogisticRegression(C=0.3, max_iter=5000)
print("CV AUC:", cross_val_score(model, X, y, cv=5, scoring="roc_auc").mean())
model.fit(X, y)

sub = pd.DataFrame({"id": test["id"].values, "churn": model.predict_proba(X_test)[:, 1]})
sub.to_csv("submission.csv", index=False)
