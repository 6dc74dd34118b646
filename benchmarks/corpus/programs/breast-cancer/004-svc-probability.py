# corpus: category=typical intent=RBF SVC with probability=True on standardised features expected=ok
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
svc = make_pipeline(StandardScaler(), SVC(C=1.0, probability=True, random_state=0)).fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": svc.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
