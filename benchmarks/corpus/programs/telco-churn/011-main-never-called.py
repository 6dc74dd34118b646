# corpus: category=bug intent=well-structured main() with HistGradientBoosting, but main is never invoked expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import OrdinalEncoder


def load():
    return pd.read_csv("data/train.csv"), pd.read_csv("data/test.csv")


def prepare(train, test):
    cats = list(train.select_dtypes(include="object").columns)
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
    train[cats] = enc.fit_transform(train[cats])
    test[cats] = enc.transform(test[cats])
    return train, test


def main():
    train, test = prepare(*load())
    features = [c for c in test.columns if c != "id"]
    model = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05)
    model.fit(train[features], train["churn"])
    sub = pd.DataFrame({"id": test["id"], "churn": model.predict_proba(test[features])[:, 1]})
    sub.to_csv("submission.csv", index=False)
    print("done")
