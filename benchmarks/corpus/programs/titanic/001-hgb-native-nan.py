# corpus: category=strong intent=HistGradientBoosting with native missing-age handling, interaction features and CV expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def prep(df):
    X = pd.DataFrame(index=df.index)
    X["female"] = (df["sex"] == "female").astype(int)
    X["pclass"] = df["passengerClass"].str[0].astype(int)
    X["age"] = df["age"]
    X["age_missing"] = df["age"].isna().astype(int)
    X["child"] = (df["age"] < 13).astype(int)
    X["female_x_class"] = X["female"] * X["pclass"]
    return X

X, Xt = prep(train), prep(test)
clf = HistGradientBoostingClassifier(learning_rate=0.05, max_iter=150, max_depth=3, min_samples_leaf=20, random_state=0)
print("CV acc", cross_val_score(clf, X, train["survived"], cv=StratifiedKFold(5, shuffle=True, random_state=0)).mean())
clf.fit(X, train["survived"])
pd.DataFrame({"id": test["id"], "survived": clf.predict(Xt)}).to_csv("submission.csv", index=False)
