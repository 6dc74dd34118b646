# corpus: category=bug intent=fit_and_predict() defined but the script only prints dataset statistics expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")


def fit_and_predict(train, test):
    X = train.drop(columns=["id", "mode"])
    clf = HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, max_depth=3).fit(X, train["mode"])
    sub = pd.DataFrame(clf.predict_proba(test[X.columns]), columns=clf.classes_)
    sub.insert(0, "id", test["id"])
    sub.to_csv("submission.csv", index=False)
    return sub


print(train.describe())
print(train["mode"].value_counts())
