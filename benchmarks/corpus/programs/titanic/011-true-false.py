# corpus: category=bug intent=survived written as True/False from a comparison instead of 0/1 expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="survived"), test]), dtype=int).fillna(-1)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
gb = GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0).fit(X, train["survived"])
test["survived"] = gb.predict_proba(Xt)[:, 1] >= 0.5
test[["id", "survived"]].to_csv("submission.csv", index=False)
