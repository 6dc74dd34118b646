# corpus: category=strong intent=cyclical date features with a regularised HistGradientBoosting classifier, columns from classes_ expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def feats(df):
    d = pd.to_datetime(df["date"])
    out = df[["precipitation", "temp_max", "temp_min", "wind"]].copy()
    out["doy_sin"] = np.sin(2 * np.pi * d.dt.dayofyear / 365.25)
    out["doy_cos"] = np.cos(2 * np.pi * d.dt.dayofyear / 365.25)
    out["year"] = d.dt.year
    out["month"] = d.dt.month
    out["temp_range"] = out["temp_max"] - out["temp_min"]
    out["wet"] = (out["precipitation"] > 0).astype(int)
    return out

X, Xt = feats(train), feats(test)
y = train["weather"]
clf = HistGradientBoostingClassifier(learning_rate=0.03, max_iter=250, max_depth=3, min_samples_leaf=20,
                                     l2_regularization=1.0, random_state=0)
cv = cross_val_score(clf, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring="neg_log_loss")
print("CV log loss %.4f" % -cv.mean())
clf.fit(X, y)
proba = clf.predict_proba(Xt)
sub = pd.DataFrame(proba, columns=clf.classes_)
sub.insert(0, "id", test["id"].values)
sub = sub[["id", "drizzle", "fog", "rain", "snow", "sun"]]
sub.to_csv("submission.csv", index=False)
