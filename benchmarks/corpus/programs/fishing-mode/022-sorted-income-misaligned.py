# corpus: category=bug intent=test sorted by income to inspect, probabilities written next to the ids of the unsorted file expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
test = test.sort_values("income")
X = train.drop(columns=["id", "mode"])
m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, train["mode"])
proba = m.predict_proba(test[X.columns])
for i, c in enumerate(m.classes_):
    sample[c] = proba[:, i]
sample.to_csv("submission.csv", index=False)
