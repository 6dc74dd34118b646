# corpus: category=bug intent=OneHotEncoder() with default handle_unknown='error' on 40+ categorical columns expected=fail
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "Sale_Price"]).fillna("missing")
X_test = test.drop(columns=["id"]).fillna("missing")
cats = X.select_dtypes(include="object").columns
nums = X.select_dtypes(exclude="object").columns

pipe = Pipeline([
    ("ct", ColumnTransformer([("oh", OneHotEncoder(), cats), ("sc", StandardScaler(), nums)])),
    ("ridge", Ridge(alpha=10.0)),
])
pipe.fit(X, np.log1p(train["Sale_Price"]))
pd.DataFrame({"id": test["id"], "Sale_Price": np.expm1(pipe.predict(X_test))}).to_csv("submission.csv", index=False)
