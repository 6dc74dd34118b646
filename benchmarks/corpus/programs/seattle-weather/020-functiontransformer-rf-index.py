# corpus: category=unusual intent=FunctionTransformer date parsing inside a pipeline with a calibrated random forest, id index and to_csv() expected=ok
import numpy as np
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer


def to_numeric(df):
    d = pd.to_datetime(df["date"])
    return np.column_stack([df["precipitation"], df["temp_max"], df["temp_min"], df["wind"],
                            np.cos(2 * np.pi * d.dt.dayofyear / 365.25), d.dt.year])


train = pd.read_csv("data/train.csv", index_col="id")
test = pd.read_csv("data/test.csv", index_col="id")
pipe = make_pipeline(FunctionTransformer(to_numeric),
                     CalibratedClassifierCV(RandomForestClassifier(n_estimators=200, min_samples_leaf=3, random_state=0), cv=3))
pipe.fit(train.drop(columns="weather"), train["weather"])
out = pd.DataFrame(pipe.predict_proba(test), index=test.index, columns=pipe.classes_)
out.to_csv("submission.csv")
