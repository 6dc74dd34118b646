# corpus: category=bug intent=imputes sex but forgets the missing measurements, so LogisticRegression sees NaN expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["sex"] = df["sex"].fillna("male")
full = pd.get_dummies(pd.concat([train.drop(columns="species"), test]), columns=["island", "sex"], dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
sc = StandardScaler().fit(X)
lr = LogisticRegression(max_iter=3000).fit(sc.transform(X), train["species"])
sub = pd.DataFrame(lr.predict_proba(sc.transform(Xt)), columns=lr.classes_)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
