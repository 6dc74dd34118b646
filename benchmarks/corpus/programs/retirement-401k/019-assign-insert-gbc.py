# corpus: category=unusual intent=.assign for ratio features, gradient boosting, sub.insert(0, "id", ...) expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
make = lambda df: df.assign(inc_pc=df.inc / df.fsize, wealth=np.sign(df.nettfa) * np.log1p(df.nettfa.abs()))
train, test = make(train), make(test)
feats = [c for c in test.columns if c != "id"]
gbc = GradientBoostingClassifier(n_estimators=200, learning_rate=0.05, max_depth=3, subsample=0.9, random_state=0)
gbc.fit(train[feats], train.e401k)
sub = pd.DataFrame({"e401k": gbc.predict(test[feats])})
sub.insert(0, "id", test.id)
sub.to_csv("submission.csv", index=False)
