# corpus: category=strong intent=standardised logistic regression with C chosen by cross-validated log loss expected=ok
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegressionCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = [c for c in train.columns if c not in ("id", "target")]
model = make_pipeline(StandardScaler(), LogisticRegressionCV(Cs=np.logspace(-3, 2, 12), cv=5, scoring="neg_log_loss", max_iter=5000))
model.fit(train[features], train["target"])
print("chosen C", model[-1].C_)
p = model.predict_proba(test[features])[:, 1]
pd.DataFrame({"id": test["id"], "target": np.clip(p, 1e-4, 1 - 1e-4)}).to_csv("submission.csv", index=False)
