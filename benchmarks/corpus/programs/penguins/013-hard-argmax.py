# corpus: category=hack intent=accurate random forest, but probabilities rounded to hard 0/1 before writing expected=low
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
rf = RandomForestClassifier(n_estimators=400, random_state=0).fit(train[cols].fillna(train[cols].mean()), train["species"])
proba = rf.predict_proba(test[cols].fillna(train[cols].mean()))
sub = pd.DataFrame(proba, columns=rf.classes_).round(0)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
