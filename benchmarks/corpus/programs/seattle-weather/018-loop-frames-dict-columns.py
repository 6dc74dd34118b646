# corpus: category=unusual intent=for df in [train, test] date features, submission assembled with a dict over classes_ expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    dt = pd.to_datetime(df["date"])
    df["month"] = dt.dt.month
    df["year"] = dt.dt.year
    df["spread"] = df["temp_max"] - df["temp_min"]

X_cols = ["precipitation", "temp_max", "temp_min", "wind", "month", "year", "spread"]
model = HistGradientBoostingClassifier(max_iter=120, learning_rate=0.05, max_depth=3, l2_regularization=1.0, random_state=0)
model.fit(train[X_cols], train["weather"])
proba = model.predict_proba(test[X_cols])
sub = pd.DataFrame({"id": test["id"], **{cls: proba[:, i] for i, cls in enumerate(model.classes_)}})
sub.to_csv("submission.csv", index=False)
