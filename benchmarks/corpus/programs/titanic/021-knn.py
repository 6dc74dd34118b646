# corpus: category=typical intent=k-nearest neighbours on scaled encoded features expected=ok
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
full = pd.get_dummies(pd.concat([train.drop(columns="survived"), test]), dtype=float)
full["age"] = full["age"].fillna(full["age"].mean())
X, Xt = full.iloc[: len(train)].drop(columns="id"), full.iloc[len(train):].drop(columns="id")
sc = StandardScaler().fit(X)
knn = KNeighborsClassifier(n_neighbors=11).fit(sc.transform(X), train["survived"])
pd.DataFrame({"id": test["id"], "survived": knn.predict(sc.transform(Xt))}).to_csv("submission.csv", index=False)
