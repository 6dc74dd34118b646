# corpus: category=bug intent=chained fillna(inplace=True) on a column is a no-op so NaNs reach LogisticRegression expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

# fill the few missing total charges
train["total_charges"].fillna(train["total_charges"].median(), inplace=True)
test["total_charges"].fillna(train["total_charges"].median(), inplace=True)

full = pd.get_dummies(pd.concat([train.drop(columns="churn"), test]), dtype=float)
X = full.iloc[: len(train)].drop(columns="id")
X_test = full.iloc[len(train):].drop(columns="id")

sc = StandardScaler().fit(X)
clf = LogisticRegression(max_iter=1000).fit(sc.transform(X), train["churn"])
pd.DataFrame({"id": test["id"], "churn": clf.predict_proba(sc.transform(X_test))[:, 1]}).to_csv("submission.csv", index=False)
