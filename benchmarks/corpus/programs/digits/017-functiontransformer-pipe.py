# corpus: category=unusual intent=FunctionTransformer adding row/column ink profiles to scaled pixels, SVC in a Pipeline, frames built with .pipe expected=ok
import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import SVC


def pixels_only(df):
    return df.loc[:, df.columns.str.startswith("pixel_")]


def as_unit(df):
    return df / 16.0


def with_profiles(X):
    X = np.asarray(X, dtype=float)
    img = X.reshape(-1, 8, 8)
    return np.hstack([X, img.sum(axis=1) / 8.0, img.sum(axis=2) / 8.0])


train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.pipe(pixels_only).pipe(as_unit)
X_test = test.pipe(pixels_only).pipe(as_unit)

pipe = Pipeline([
    ("profiles", FunctionTransformer(with_profiles)),
    ("scale", StandardScaler()),
    ("svc", SVC(C=8.0, gamma="scale")),
])
pipe.fit(X, train["target"])
(test[["id"]]
 .assign(target=pipe.predict(X_test))
 .to_csv("submission.csv", index=False))
