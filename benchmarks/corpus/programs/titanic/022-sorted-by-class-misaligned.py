# corpus: category=bug intent=test sorted by passenger class before predicting, ids taken from the unsorted frame expected=low
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
ids = test["id"].values
test = test.sort_values(["passengerClass", "sex"])
enc = lambda df: pd.DataFrame({"female": (df["sex"] == "female").astype(int),
                               "cls": df["passengerClass"].str[0].astype(int),
                               "age": df["age"].fillna(30)})
rf = RandomForestClassifier(n_estimators=300, max_depth=5, random_state=0).fit(enc(train), train["survived"])
pd.DataFrame({"id": ids, "survived": rf.predict(enc(test))}).to_csv("submission.csv", index=False)
