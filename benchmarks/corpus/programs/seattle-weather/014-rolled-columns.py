# corpus: category=hack intent=logistic regression probabilities shifted one class to the right with np.roll expected=low
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(train[cols], train["weather"])
p = np.roll(m.predict_proba(test[cols]), 1, axis=1)
sub = pd.DataFrame(p, columns=m.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
