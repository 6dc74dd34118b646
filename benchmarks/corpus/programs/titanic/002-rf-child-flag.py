# corpus: category=strong intent=random forest with age imputed by sex and class group medians plus a child flag expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
group_med = train.groupby(["sex", "passengerClass"])["age"].median()
for df in (train, test):
    fill = df.set_index(["sex", "passengerClass"]).index.map(group_med)
    df["age_f"] = df["age"].fillna(pd.Series(fill, index=df.index))
    df["is_female"] = (df["sex"] == "female").astype(int)
    df["cls"] = df["passengerClass"].map({"1st": 1, "2nd": 2, "3rd": 3})
    df["child"] = (df["age_f"] < 12).astype(int)
feats = ["age_f", "is_female", "cls", "child"]
rf = RandomForestClassifier(n_estimators=400, max_depth=5, min_samples_leaf=3, random_state=0)
rf.fit(train[feats], train["survived"])
pd.DataFrame({"id": test["id"], "survived": rf.predict(test[feats])}).to_csv("submission.csv", index=False)
