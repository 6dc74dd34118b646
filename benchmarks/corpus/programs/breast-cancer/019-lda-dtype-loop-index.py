# corpus: category=unusual intent=dtype loop picks float columns, log-transforms area/perimeter ones, LDA, id index written with to_csv() expected=ok
import numpy as np
import pandas as pd
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

train = pd.read_csv("data/train.csv", index_col="id")
test = pd.read_csv("data/test.csv", index_col="id")
cols = []
for c in test.columns:
    if train[c].dtype == np.float64:
        if "area" in c or "perimeter" in c:
            train[c], test[c] = np.log(train[c]), np.log(test[c])
        cols.append(c)
lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(train[cols], train["target"])
out = pd.DataFrame({"target": lda.predict_proba(test[cols])[:, 1].clip(0.005, 0.995)}, index=test.index)
out.to_csv("submission.csv")
