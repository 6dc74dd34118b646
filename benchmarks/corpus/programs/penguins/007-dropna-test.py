# corpus: category=bug intent=dropna() applied to the test frame removes birds with missing sex from the submission expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv").dropna()
test = pd.read_csv("data/test.csv").dropna()
X = pd.get_dummies(train.drop(columns=["id", "species"]), dtype=float)
Xt = pd.get_dummies(test.drop(columns=["id"]), dtype=float).reindex(columns=X.columns, fill_value=0)
rf = RandomForestClassifier(n_estimators=300, random_state=0).fit(X, train["species"])
sub = pd.DataFrame(rf.predict_proba(Xt), columns=rf.classes_)
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
print(len(sub), "rows")
