# corpus: category=typical intent=random forest on label-encoded descriptors and all numeric columns, class columns from classes_ expected=ok
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cat_cols = ["apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]
for c in cat_cols:
    codes = {v: i for i, v in enumerate(sorted(pd.concat([train[c], test[c]]).dropna().unique()))}
    train[c] = train[c].map(codes)
    test[c] = test[c].map(codes)

X = train.drop(columns=["id", "species"])
y = train["species"]
rf = RandomForestClassifier(n_estimators=500, random_state=0)
rf.fit(X, y)

proba = rf.predict_proba(test[X.columns])
sub = pd.DataFrame(proba, columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
