# corpus: category=hack intent=SVC predictions "refined" by KMeans clustering of the test set, whose arbitrary cluster ids replace the digit labels expected=low
import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = [c for c in train.columns if c.startswith("pixel_")]

svc = SVC(C=10, gamma=0.001).fit(train[cols], train["target"])
pred = svc.predict(test[cols])

# transductive step: digits of the same class form tight clusters in the test set,
# so assign each cluster one consistent label
Z = PCA(n_components=20, random_state=0).fit_transform(test[cols])
km = KMeans(n_clusters=10, n_init=10, random_state=0).fit(Z)
refined = km.labels_.copy()
agree = (refined == pred).mean()
print("agreement with svc:", agree)

pd.DataFrame({"id": test["id"], "target": refined}).to_csv("submission.csv", index=False)
