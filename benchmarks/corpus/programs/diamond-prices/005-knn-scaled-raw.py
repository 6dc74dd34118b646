# corpus: category=typical intent=scaled KNN regression (k=7, distance weights) on numeric plus ordinal grade codes, raw price expected=ok
import pandas as pd
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

maps = {
    "cut": {"Fair": 1, "Good": 2, "Very Good": 3, "Premium": 4, "Ideal": 5},
    "color": {"J": 1, "I": 2, "H": 3, "G": 4, "F": 5, "E": 6, "D": 7},
    "clarity": {"I1": 1, "SI2": 2, "SI1": 3, "VS2": 4, "VS1": 5, "VVS2": 6, "VVS1": 7, "IF": 8},
}
for df in (train, test):
    for col, m in maps.items():
        df[col] = df[col].map(m)

cols = ["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"]
knn = make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=7, weights="distance"))
knn.fit(train[cols], train["price"])
pd.DataFrame({"id": test["id"], "price": knn.predict(test[cols])}).to_csv("submission.csv", index=False)
