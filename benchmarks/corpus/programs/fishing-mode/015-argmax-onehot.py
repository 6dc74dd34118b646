# corpus: category=hack intent=boosted probabilities converted to one-hot argmax rows expected=low
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
gb = GradientBoostingClassifier(n_estimators=150, max_depth=3, random_state=0).fit(X, train["mode"])
proba = pd.DataFrame(gb.predict_proba(test[X.columns]), columns=gb.classes_)
onehot = pd.get_dummies(proba.idxmax(axis=1), dtype=float).reindex(columns=gb.classes_, fill_value=0.0)
onehot.insert(0, "id", test["id"].values)
onehot.to_csv("submission.csv", index=False)
