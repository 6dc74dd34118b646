# corpus: category=unusual intent=in-place add_features(df) helper, ExtraTrees, id index written with to_csv() expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesRegressor


def add_features(df):
    df["binder"] = df["cement"] + df["blast_furnace_slag"] + df["fly_ash"]
    df["water_binder"] = df["water"] / df["binder"]
    df["log_age"] = np.log(df["age"])


train = pd.read_csv("data/train.csv").set_index("id")
test = pd.read_csv("data/test.csv").set_index("id")
add_features(train)
add_features(test)
y = train.pop("compressive_strength")
et = ExtraTreesRegressor(n_estimators=600, min_samples_leaf=1, random_state=0)
et.fit(train, y)
test["compressive_strength"] = et.predict(test[train.columns])
test["compressive_strength"].to_csv("submission.csv")
