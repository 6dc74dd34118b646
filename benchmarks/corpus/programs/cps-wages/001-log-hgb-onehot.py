# corpus: category=strong intent=log wage target, one-hot categoricals, HistGradientBoosting tuned for RMSLE expected=ok
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cats = ["ethnicity", "smsa", "region", "parttime"]
nums = ["education", "experience"]

pipe = Pipeline([
    ("ct", ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)], remainder="passthrough")),
    ("hgb", HistGradientBoostingRegressor(learning_rate=0.05, max_iter=300, max_leaf_nodes=15, min_samples_leaf=40, random_state=0)),
])
y = np.log1p(train["wage"])
X = train[cats + nums]
print("CV RMSLE", -cross_val_score(pipe, X, y, cv=KFold(5, shuffle=True, random_state=1), scoring="neg_root_mean_squared_error").mean())
pipe.fit(X, y)
pred = np.expm1(pipe.predict(test[cats + nums]))
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
