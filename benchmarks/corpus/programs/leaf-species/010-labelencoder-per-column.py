# corpus: category=bug intent=LabelEncoder fit per descriptor column on train only, then transform on test (unseen levels raise) expected=fail
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.preprocessing import LabelEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

encoders = {}
for col in ["apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]:
    encoders[col] = LabelEncoder().fit(train[col])
    train[col] = encoders[col].transform(train[col])
    test[col] = encoders[col].transform(test[col])

features = [c for c in test.columns if c != "id"]
et = ExtraTreesClassifier(n_estimators=500, min_samples_leaf=2, random_state=0)
et.fit(train[features], train["species"])

sub = pd.DataFrame(et.predict_proba(test[features]), columns=et.classes_)[sample.columns[1:]]
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
