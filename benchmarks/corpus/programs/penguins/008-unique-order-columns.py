# corpus: category=bug intent=probability columns named by train.species.unique() order instead of classes_ order expected=low
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.preprocessing import LabelEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
train[num] = train[num].fillna(train[num].mean())
test[num] = test[num].fillna(train[num].mean())
le = LabelEncoder()
train["island_code"] = le.fit_transform(train["island"])
test["island_code"] = le.transform(test["island"])

features = num + ["island_code"]
gb = GradientBoostingClassifier(n_estimators=100, max_depth=2, random_state=0).fit(train[features], train["species"])
species = list(train["species"].unique())
print("species:", species)
sub = pd.DataFrame(gb.predict_proba(test[features]), columns=species)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
