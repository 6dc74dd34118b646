# corpus: category=bug intent=random forest trained on log1p(price) whose predictions are written without expm1 expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

grades = {
    "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
    "color": ["J", "I", "H", "G", "F", "E", "D"],
    "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
}
for df in (train, test):
    for col, levels in grades.items():
        df[col] = df[col].map({lvl: i for i, lvl in enumerate(levels)})
    df["volume"] = df["x"] * df["y"] * df["z"]

features = ["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z", "volume"]
y_log = np.log1p(train["price"])

rf = RandomForestRegressor(n_estimators=250, min_samples_leaf=2, random_state=0)
print("CV RMSE on log scale:",
      -cross_val_score(rf, train[features], y_log, cv=3, scoring="neg_root_mean_squared_error").mean())
rf.fit(train[features], y_log)

submission = pd.DataFrame({"id": test["id"], "price": rf.predict(test[features])})
submission.to_csv("submission.csv", index=False)
