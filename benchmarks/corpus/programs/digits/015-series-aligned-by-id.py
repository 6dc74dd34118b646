# corpus: category=hack intent=stacked SVC/KNN votes put into a Series indexed by test id and assigned to the sample, which aligns on the row index instead expected=low
import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")
px = [c for c in train.columns if c.startswith("pixel_")]

svc = SVC(C=10, gamma=0.001, probability=True, random_state=0).fit(train[px], train["target"])
knn = KNeighborsClassifier(n_neighbors=4, weights="distance").fit(train[px], train["target"])
P = 0.6 * svc.predict_proba(test[px]) + 0.4 * knn.predict_proba(test[px])
labels = svc.classes_[P.argmax(axis=1)]

pred = pd.Series(labels, index=test["id"].to_numpy(), name="target")
sub = sample.copy()
sub["target"] = pred
sub["target"] = sub["target"].fillna(sample["target"]).astype(int)
sub.to_csv("submission.csv", index=False)
