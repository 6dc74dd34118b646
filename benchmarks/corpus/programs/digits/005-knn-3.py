# corpus: category=typical intent=3-nearest-neighbours on raw pixels expected=ok
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

pixel_cols = train.filter(like="pixel_").columns
knn = KNeighborsClassifier(n_neighbors=3)
knn.fit(train[pixel_cols], train["target"])
test["target"] = knn.predict(test[pixel_cols])
test[["id", "target"]].to_csv("submission.csv", index=False)
