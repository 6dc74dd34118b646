# corpus: category=weak intent=unscaled 15-NN on the raw numeric columns with zero-filled gaps expected=low
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

num_cols = ["Seniority", "Time", "Age", "Expenses", "Income", "Assets", "Debt", "Amount", "Price"]
X = train[num_cols].fillna(0)
X_test = test[num_cols].fillna(0)

knn = KNeighborsClassifier(n_neighbors=15)
knn.fit(X, train["Status"])
pd.DataFrame({"id": test["id"], "Status": knn.predict_proba(X_test)[:, 1]}).to_csv("submission.csv", index=False)
