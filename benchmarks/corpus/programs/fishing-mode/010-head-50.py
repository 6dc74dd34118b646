# corpus: category=bug intent=only the first 50 rows of the submission are written (debug slice left in) expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, train["mode"])
sub = pd.DataFrame(m.predict_proba(test[X.columns]), columns=m.classes_)
sub.insert(0, "id", test["id"])
sub.head(50).to_csv("submission.csv", index=False)
