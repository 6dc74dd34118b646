# corpus: category=weak intent=unpruned decision tree, so probabilities are hard 0/1 expected=low
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mode"])
tree = DecisionTreeClassifier(random_state=0).fit(X, train["mode"])
sub = pd.DataFrame(tree.predict_proba(test[X.columns]), columns=tree.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
