# corpus: category=bug intent=TransformedTargetRegressor already undoes the log, then np.exp is applied a second time expected=low
import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor, make_column_transformer
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]

pre = make_column_transformer(
    (OneHotEncoder(handle_unknown="ignore"), cats),
    (StandardScaler(), ["year", "age"]),
)
model = TransformedTargetRegressor(
    regressor=make_pipeline(pre, Ridge(alpha=1.0)),
    func=np.log, inverse_func=np.exp,
)
model.fit(train.drop(columns=["id", "wage"]), train["wage"])
log_pred = model.predict(test.drop(columns=["id"]))
wage_pred = np.exp(log_pred)
pd.DataFrame({"id": test["id"], "wage": wage_pred}).to_csv("submission.csv", index=False)
