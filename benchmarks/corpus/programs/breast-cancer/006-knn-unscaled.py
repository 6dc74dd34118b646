# corpus: category=weak intent=5-nearest-neighbour probabilities on unscaled features (hard 0/1 rows are common) expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
knn = KNeighborsClassifier(n_neighbors=5).fit(X, train["target"])
pd.DataFrame({"id": test["id"], "target": knn.predict_proba(test[X.columns])[:, 1]}).to_csv("submission.csv", index=False)
