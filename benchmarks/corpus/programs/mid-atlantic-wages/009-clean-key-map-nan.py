# corpus: category=bug intent=binary columns mapped with keys lacking the ordering prefix, so they turn into all-NaN features that HGB silently ignores expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

binary_maps = {
    "jobclass": {"Industrial": 0, "Information": 1},
    "health": {"<=Good": 0, ">=Very Good": 1},
    "health_ins": {"Yes": 1, "No": 0},
}
edu_order = {"1. < HS Grad": 1, "2. HS Grad": 2, "3. Some College": 3, "4. College Grad": 4, "5. Advanced Degree": 5}

for df in (train, test):
    for col, m in binary_maps.items():
        df[col] = df[col].map(m)
    df["education"] = df["education"].map(edu_order)
    df["married"] = (df["maritl"] == "2. Married").astype(int)
    df["white"] = (df["race"] == "1. White").astype(int)

feats = ["year", "age", "education", "married", "white"] + list(binary_maps)
model = HistGradientBoostingRegressor(loss="absolute_error", max_iter=300, learning_rate=0.05, random_state=0)
model.fit(train[feats], train["wage"])
pd.DataFrame({"id": test["id"], "wage": model.predict(test[feats])}).to_csv("submission.csv", index=False)
