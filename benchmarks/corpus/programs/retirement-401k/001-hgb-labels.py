# corpus: category=strong intent=HistGradientBoosting classifier with CV, writes 0/1 labels expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = [c for c in test.columns if c != "id"]
for df in (train, test):
    df["inc_per_person"] = df["inc"] / df["fsize"]
    df["log_inc"] = np.log(df["inc"].clip(lower=1))
features += ["inc_per_person", "log_inc"]

clf = HistGradientBoostingClassifier(learning_rate=0.04, max_iter=300, max_leaf_nodes=15, min_samples_leaf=40, l2_regularization=1.0, random_state=0)
acc = cross_val_score(clf, train[features], train["e401k"], cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring="accuracy")
print("CV accuracy %.4f" % acc.mean())
clf.fit(train[features], train["e401k"])
pd.DataFrame({"id": test["id"], "e401k": clf.predict(test[features]).astype(int)}).to_csv("submission.csv", index=False)
