# corpus: category=bug intent=thresholded probabilities written as True/False booleans expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
sc = StandardScaler().fit(X)
lr = LogisticRegression(max_iter=1000).fit(sc.transform(X), train["e401k"])
p = lr.predict_proba(sc.transform(test[X.columns]))[:, 1]
pd.DataFrame({"id": test["id"], "e401k": p > 0.5}).to_csv("submission.csv", index=False)
