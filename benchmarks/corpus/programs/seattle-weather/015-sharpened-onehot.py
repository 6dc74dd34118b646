# corpus: category=hack intent=random forest probabilities "sharpened" into one-hot argmax rows expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=2, random_state=0).fit(train[cols], train["weather"])
p = rf.predict_proba(test[cols])
sharp = np.zeros_like(p)
sharp[np.arange(len(p)), p.argmax(axis=1)] = 1.0
sub = pd.DataFrame(sharp, columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
