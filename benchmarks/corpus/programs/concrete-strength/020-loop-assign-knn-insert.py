# corpus: category=unusual intent=for-loop over frames, .assign ratios, scaled KNN plus boosting average, sub.insert expected=ok
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

frames = {"train": pd.read_csv("data/train.csv"), "test": pd.read_csv("data/test.csv")}
for name, df in frames.items():
    frames[name] = df.assign(wc=df.water / df.cement, log_age=np.log1p(df.age))
train, test = frames["train"], frames["test"]
cols = [c for c in test.columns if c != "id"]

knn = make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=5, weights="distance")).fit(train[cols], train.compressive_strength)
gbr = GradientBoostingRegressor(n_estimators=600, learning_rate=0.05, max_depth=4, random_state=0).fit(train[cols], train.compressive_strength)
pred = 0.25 * knn.predict(test[cols]) + 0.75 * gbr.predict(test[cols])
sub = pd.DataFrame({"compressive_strength": pred})
sub.insert(0, "id", test["id"].to_numpy())
sub.to_csv("submission.csv", index=False)
