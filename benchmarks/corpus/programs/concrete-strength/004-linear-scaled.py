# corpus: category=typical intent=standardised linear regression on raw mixture columns expected=ok
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "compressive_strength"])
y = train["compressive_strength"]
model = make_pipeline(StandardScaler(), LinearRegression())
print("cv r2", cross_val_score(model, X, y, cv=5).mean())
model.fit(X, y)
pd.DataFrame({"id": test.id, "compressive_strength": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
