# corpus: category=unusual intent=FunctionTransformer prefix-code pipeline into absolute-loss GBM, .pipe feature step, id written as the index expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

CATS = ["maritl", "race", "education", "jobclass", "health", "health_ins"]


def prefix_codes(frame):
    frame = frame.copy()
    for col in CATS:
        frame[col] = frame[col].str.extract(r"^(\d+)", expand=False).astype(float)
    return frame


def with_interactions(frame):
    return frame.assign(
        age_edu=lambda d: d["age"] * d["education"],
        prime_age=lambda d: d["age"].between(35, 55).astype(float),
    )


train = pd.read_csv("data/train.csv").set_index("id")
test = pd.read_csv("data/test.csv").set_index("id")
y = train.pop("wage")

pipe = Pipeline([
    ("codes", FunctionTransformer(prefix_codes)),
    ("extra", FunctionTransformer(lambda d: d.pipe(with_interactions))),
    ("gbm", GradientBoostingRegressor(loss="absolute_error", n_estimators=300, learning_rate=0.05,
                                      max_depth=3, min_samples_leaf=20, random_state=7)),
])
pipe.fit(train, y)
pred = pd.Series(pipe.predict(test), index=test.index, name="wage")
print(pred.describe())
pred.to_frame().to_csv("submission.csv", index_label="id")
