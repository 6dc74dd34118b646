# corpus: category=typical intent=RBF support vector regression on standardised inputs expected=ok
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
svr = make_pipeline(StandardScaler(), SVR(C=50, epsilon=1.0, gamma="scale"))
svr.fit(X, train["compressive_strength"])
pd.DataFrame({"id": test.id, "compressive_strength": svr.predict(test[X.columns])}).to_csv("submission.csv", index=False)
