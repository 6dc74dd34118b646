# corpus: category=bug intent=training and writing live in functions that are defined but never called expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

FEATURES = ["precipitation", "temp_max", "temp_min", "wind", "month"]


def load_data():
    train = pd.read_csv("data/train.csv")
    test = pd.read_csv("data/test.csv")
    for df in (train, test):
        df["month"] = pd.to_datetime(df["date"]).dt.month
    return train, test


def train_model(train):
    model = RandomForestClassifier(n_estimators=300, min_samples_leaf=2, random_state=0)
    model.fit(train[FEATURES], train["weather"])
    return model


def write_submission(model, test):
    proba = model.predict_proba(test[FEATURES])
    sub = pd.DataFrame(proba, columns=model.classes_)
    sub.insert(0, "id", test["id"].values)
    sub.to_csv("submission.csv", index=False)


print("pipeline ready")
