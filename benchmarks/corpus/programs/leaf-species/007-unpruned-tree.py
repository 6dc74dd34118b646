# corpus: category=weak intent=single unpruned decision tree on numeric columns, so every probability is 0 or 1 expected=low
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

num = [c for c in test.columns if c != "id" and test[c].dtype != "str"]
tree = DecisionTreeClassifier(random_state=0).fit(train[num], train["species"])
sub = pd.DataFrame(tree.predict_proba(test[num]), columns=tree.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
