# corpus: category=bug intent=train["age"].fillna(..., inplace=True) does nothing under copy-on-write, so LogisticRegression gets NaN expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
age_median = train["age"].median()
train["age"].fillna(age_median, inplace=True)
test["age"].fillna(age_median, inplace=True)
for df in (train, test):
    df["female"] = (df["sex"] == "female").astype(int)
    df["first"] = (df["passengerClass"] == "1st").astype(int)
    df["third"] = (df["passengerClass"] == "3rd").astype(int)
feats = ["female", "first", "third", "age"]
lr = LogisticRegression(max_iter=1000).fit(train[feats], train["survived"])
pd.DataFrame({"id": test["id"], "survived": lr.predict(test[feats])}).to_csv("submission.csv", index=False)
