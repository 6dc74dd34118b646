# corpus: category=bug intent=model training and submission inside run() which is never called; only data is loaded expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
print(train.shape, test.shape)
print(train["e401k"].value_counts(normalize=True))


def run():
    X = train.drop(columns=["id", "e401k"])
    model = GradientBoostingClassifier(n_estimators=250, learning_rate=0.05, max_depth=3)
    model.fit(X, train["e401k"])
    pd.DataFrame({"id": test["id"], "e401k": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
