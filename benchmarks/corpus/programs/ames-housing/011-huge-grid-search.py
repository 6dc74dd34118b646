# corpus: category=bug intent=exhaustive GridSearchCV over random forest hyperparameters, far beyond the 60 s budget expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import GridSearchCV

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="Sale_Price"), test]), dtype=float).fillna(0)
X = full.iloc[: len(train)].drop(columns="id")
Xt = full.iloc[len(train):].drop(columns="id")
y = np.log1p(train["Sale_Price"])

grid = {
    "n_estimators": [200, 500, 1000],
    "max_depth": [None, 10, 20, 30],
    "min_samples_leaf": [1, 2, 4],
    "max_features": ["sqrt", 0.3, 0.5, 1.0],
}
search = GridSearchCV(RandomForestRegressor(random_state=0), grid, cv=5, scoring="neg_mean_squared_error", verbose=1)
search.fit(X, y)
print(search.best_params_)
pd.DataFrame({"id": test["id"], "Sale_Price": np.expm1(search.predict(Xt))}).to_csv("submission.csv", index=False)
