# corpus: category=bug intent=logistic regression probabilities (classes_ order) written under headers taken from species.unique() order expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = pd.get_dummies(train.drop(columns=["id", "species"]), dtype=float)
X_test = pd.get_dummies(test.drop(columns=["id"]), dtype=float).reindex(columns=X.columns, fill_value=0.0)
species = train["species"].unique()

clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=3000))
clf.fit(X, train["species"])

sub = pd.DataFrame(clf.predict_proba(X_test), columns=species)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
