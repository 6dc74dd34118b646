# corpus: category=typical intent=scaled k-nearest-neighbours classifier with k=15 expected=ok
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
knn = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=15)).fit(X, train["e401k"])
pd.DataFrame({"id": test["id"], "e401k": knn.predict(test[X.columns])}).to_csv("submission.csv", index=False)
