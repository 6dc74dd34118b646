# corpus: category=typical intent=make_pipeline one-hot plus logistic regression with defaults expected=ok
import pandas as pd
from sklearn.compose import make_column_transformer, make_column_selector
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "churn"])
y = train["churn"]

pre = make_column_transformer(
    (make_pipeline(SimpleImputer(), StandardScaler()), make_column_selector(dtype_include="number")),
    (OneHotEncoder(handle_unknown="ignore"), make_column_selector(dtype_exclude="number")),
)
model = make_pipeline(pre, LogisticRegression(max_iter=1000))
model.fit(X, y)
pd.DataFrame({"id": test["id"], "churn": model.predict_proba(test.drop(columns="id"))[:, 1]}).to_csv("submission.csv", index=False)
