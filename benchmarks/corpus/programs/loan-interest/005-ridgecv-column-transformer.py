# corpus: category=typical intent=RidgeCV pipeline with imputer+scaler for numbers and one-hot (ignore unknown) for text expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = train.drop(columns=["id", "interest_rate", "emp_title"])
y = train["interest_rate"]
X_test = test.drop(columns=["id", "emp_title"])

pre = make_column_transformer(
    (make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), make_column_selector(dtype_include=np.number)),
    (make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(handle_unknown="ignore")),
     make_column_selector(dtype_exclude=np.number)),
)
model = make_pipeline(pre, RidgeCV(alphas=np.logspace(-2, 3, 20)))
scores = cross_val_score(model, X, y, cv=5, scoring="neg_root_mean_squared_error")
print("CV RMSE: %.3f" % -scores.mean())

model.fit(X, y)
pd.DataFrame({"id": test.id, "interest_rate": model.predict(X_test)}).to_csv("submission.csv", index=False)
