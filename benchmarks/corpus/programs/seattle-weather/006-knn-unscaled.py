# corpus: category=weak intent=3-nearest-neighbour probabilities on unscaled features (many exact zeros) expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
knn = KNeighborsClassifier(n_neighbors=3).fit(train[cols], train["weather"])
sub = pd.DataFrame(knn.predict_proba(test[cols]), columns=knn.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
