# corpus: category=bug intent=writes predict() 0/1 labels for a log-loss metric expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": clf.predict(test[X.columns])}).to_csv("submission.csv", index=False)
