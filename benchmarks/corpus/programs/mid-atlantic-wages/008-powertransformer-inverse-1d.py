# corpus: category=bug intent=Yeo-Johnson transformed target, inverse_transform called on the 1-D prediction vector expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.preprocessing import OrdinalEncoder, PowerTransformer

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]
enc = OrdinalEncoder().fit(train[cats])
X = pd.concat([train[["year", "age"]], pd.DataFrame(enc.transform(train[cats]), columns=cats)], axis=1)
X_test = pd.concat([test[["year", "age"]], pd.DataFrame(enc.transform(test[cats]), columns=cats)], axis=1)

# wages are right-skewed, so fit on a Gaussianised target
pt = PowerTransformer(method="yeo-johnson")
y_t = pt.fit_transform(train[["wage"]]).ravel()

model = GradientBoostingRegressor(n_estimators=300, learning_rate=0.05, max_depth=3, random_state=0)
model.fit(X, y_t)
pred = pt.inverse_transform(model.predict(X_test))
pd.DataFrame({"id": test["id"], "wage": pred}).to_csv("submission.csv", index=False)
