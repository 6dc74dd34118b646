# corpus: category=strong intent=average of random forest and logistic regression probabilities, clipped and renormalised expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
med = train[num].median()
n = len(train)
full = pd.concat([train.drop(columns="species"), test], ignore_index=True)
full[num] = full[num].fillna(med)
full["sex"] = full["sex"].fillna("unknown")
full["bill_ratio"] = full["bill_length_mm"] / full["bill_depth_mm"]
full = pd.get_dummies(full, columns=["island", "sex"], dtype=float)
X_all = full.drop(columns=["id", "year"])
X, Xt = X_all.iloc[:n], X_all.iloc[n:]
y = train["species"]

sc = StandardScaler().fit(X)
lr = LogisticRegression(C=1.0, max_iter=5000).fit(sc.transform(X), y)
rf = RandomForestClassifier(n_estimators=500, random_state=0).fit(X, y)
p = 0.6 * lr.predict_proba(sc.transform(Xt)) + 0.4 * rf.predict_proba(Xt)
p = np.clip(p, 0.005, 0.995)
p /= p.sum(axis=1, keepdims=True)
sub = pd.DataFrame(p, columns=lr.classes_)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
