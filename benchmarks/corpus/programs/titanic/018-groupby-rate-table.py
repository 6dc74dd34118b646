# corpus: category=unusual intent=survival-rate lookup table over sex, class and child flag with a 0.5 cut expected=ok
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["child"] = df["age"].lt(14).astype(int)
keys = ["sex", "passengerClass", "child"]
rates = train.groupby(keys)["survived"].mean().rename("rate").reset_index()
merged = test.merge(rates, on=keys, how="left")
merged["rate"] = merged["rate"].fillna(merged["sex"].map(train.groupby("sex")["survived"].mean()))
assert len(merged) == len(test) and (merged["id"].values == test["id"].values).all()
pd.DataFrame({"id": merged["id"], "survived": (merged["rate"] > 0.5).astype(int)}).to_csv("submission.csv", index=False)
