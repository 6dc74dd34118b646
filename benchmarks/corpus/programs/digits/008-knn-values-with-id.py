# corpus: category=bug intent=KNN on .values slices that keep the id column, so the id dominates the distances expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

train = pd.read_csv("data/train.csv").values
test_df = pd.read_csv("data/test.csv")
test = test_df.values

X, y = train[:, :-1], train[:, -1].astype(int)
knn = KNeighborsClassifier(n_neighbors=5)
knn.fit(X, y)
print("train acc", knn.score(X, y))

pd.DataFrame({"id": test_df["id"], "target": knn.predict(test)}).to_csv("submission.csv", index=False)
