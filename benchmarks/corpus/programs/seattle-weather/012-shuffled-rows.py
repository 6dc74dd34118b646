# corpus: category=hack intent=good boosting model whose probability rows are shuffled relative to the ids expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in (train, test):
    df["doy"] = pd.to_datetime(df["date"]).dt.dayofyear
cols = ["precipitation", "temp_max", "temp_min", "wind", "doy"]
clf = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, max_depth=3).fit(train[cols], train["weather"])
proba = clf.predict_proba(test[cols])
idx = np.random.RandomState(42).permutation(len(proba))
sub = pd.DataFrame(proba[idx], columns=clf.classes_)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
