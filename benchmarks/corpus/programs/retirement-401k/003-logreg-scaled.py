# corpus: category=typical intent=standardised logistic regression predicting labels expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(X, train["e401k"])
pd.DataFrame({"id": test["id"], "e401k": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
