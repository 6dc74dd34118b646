# corpus: category=bug intent=writes survival probabilities although the metric is accuracy on 0/1 labels expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="survived"), test]), dtype=int)
full["age"] = full["age"].fillna(full["age"].median())
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
rf = RandomForestClassifier(n_estimators=300, max_depth=5, random_state=0).fit(X, train["survived"])
pd.DataFrame({"id": test["id"], "survived": rf.predict_proba(Xt)[:, 1]}).to_csv("submission.csv", index=False)
