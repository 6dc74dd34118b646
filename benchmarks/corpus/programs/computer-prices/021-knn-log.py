# corpus: category=typical intent=scaled k-nearest neighbours on log price expected=ok
import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="price"), test]), dtype=float)
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
knn = make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=10, weights="distance")).fit(X, np.log(train["price"]))
pd.DataFrame({"id": test["id"], "price": np.exp(knn.predict(Xt))}).to_csv("submission.csv", index=False)
