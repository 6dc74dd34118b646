# corpus: category=typical intent=sklearn PoissonRegressor on standardised features for the visit count expected=ok
import pandas as pd
from sklearn.linear_model import PoissonRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mdvis"])
model = make_pipeline(StandardScaler(), PoissonRegressor(alpha=1e-3, max_iter=1000)).fit(X, train["mdvis"])
pd.DataFrame({"id": test["id"], "mdvis": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
