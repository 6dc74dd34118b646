# corpus: category=typical intent=depth-4 decision tree on encoded sex, class and filled age expected=ok
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    df["sex"] = df["sex"].map({"male": 0, "female": 1})
    df["passengerClass"] = df["passengerClass"].map({"1st": 1, "2nd": 2, "3rd": 3})
    df["age"] = df["age"].fillna(-1)
X = train[["sex", "passengerClass", "age"]]
dt = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, train["survived"])
pd.DataFrame({"id": test["id"], "survived": dt.predict(test[X.columns])}).to_csv("submission.csv", index=False)
