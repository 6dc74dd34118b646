# corpus: category=bug intent=probabilities in classes_ order written under the overview's mode order (beach, pier, boat, charter) expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, train["mode"])
proba = m.predict_proba(test[X.columns])
sub = pd.DataFrame(proba, columns=["beach", "pier", "boat", "charter"])
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
