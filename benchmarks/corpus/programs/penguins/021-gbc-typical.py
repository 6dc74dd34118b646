# corpus: category=typical intent=gradient boosting classifier on imputed measurements and island code expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
for df in (train, test):
    df[cols] = df[cols].fillna(train[cols].median())
    df["island_code"] = df["island"].map({"Biscoe": 0, "Dream": 1, "Torgersen": 2})
gbc = GradientBoostingClassifier(n_estimators=150, learning_rate=0.1, max_depth=2, random_state=0)
gbc.fit(train[cols + ["island_code"]], train["species"])
proba = gbc.predict_proba(test[cols + ["island_code"]])
sub = pd.DataFrame(proba, columns=gbc.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
