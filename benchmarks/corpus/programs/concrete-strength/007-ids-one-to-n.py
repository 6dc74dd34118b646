# corpus: category=bug intent=submission ids regenerated as 1..n instead of the test ids expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
rf = RandomForestRegressor(n_estimators=300, random_state=0).fit(X, train["compressive_strength"])
pred = rf.predict(test[X.columns])
sub = pd.DataFrame({"id": np.arange(1, len(test) + 1), "compressive_strength": pred})
sub.to_csv("submission.csv", index=False)
