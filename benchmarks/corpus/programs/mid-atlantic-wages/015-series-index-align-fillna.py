# corpus: category=hack intent=random forest + absolute-loss GBM average stored as an id-indexed Series and assigned into the RangeIndex sample, gaps filled with the median expected=low
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sub = pd.read_csv("data/sample_submission.csv")

X = pd.get_dummies(train.drop(columns=["id", "wage"]), dtype=float)
X_test = pd.get_dummies(test.drop(columns=["id"]), dtype=float).reindex(columns=X.columns, fill_value=0.0)
y = train["wage"]

rf = RandomForestRegressor(n_estimators=200, min_samples_leaf=8, random_state=0).fit(X, y)
gb = GradientBoostingRegressor(loss="absolute_error", n_estimators=300, learning_rate=0.05, random_state=0).fit(X, y)
pred = pd.Series(0.5 * rf.predict(X_test) + 0.5 * gb.predict(X_test), index=test["id"], name="wage")

sub["wage"] = pred
sub["wage"] = sub["wage"].fillna(y.median())  # safety net for any id we failed to score
sub.to_csv("submission.csv", index=False)
print(sub.describe())
