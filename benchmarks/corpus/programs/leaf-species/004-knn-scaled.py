# corpus: category=typical intent=scaled KNN (k=10) on the numeric features only, probabilities from neighbour votes expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

num = train.select_dtypes("number").columns.drop("id")
knn = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=10))
knn.fit(train[num], train["species"])

probs = pd.DataFrame(knn.predict_proba(test[num]), columns=knn.classes_)
sub = sample[["id"]].copy()
sub[list(knn.classes_)] = probs.values
sub.to_csv("submission.csv", index=False)
