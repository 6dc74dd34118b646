# corpus: category=bug intent=GBM pipeline that fills gaps with fillna(method=...) which pandas 3 no longer accepts expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

num_cols = [c for c in train.select_dtypes("number").columns if c not in ("id", "interest_rate")]


def clean(df):
    df = df.copy()
    df["emp_length"] = df["emp_length"].fillna(method="ffill").fillna(0)
    for c in num_cols:
        df[c] = df[c].fillna(df[c].median())
    df["term_60"] = (df["term"] == 60).astype(int)
    df["verified"] = (df["verified_income"] != "Not Verified").astype(int)
    return df


train, test = clean(train), clean(test)
feats = num_cols + ["term_60", "verified"]
model = GradientBoostingRegressor(n_estimators=300, learning_rate=0.05, max_depth=4, random_state=0)
model.fit(train[feats], train["interest_rate"])
pd.DataFrame({"id": test["id"], "interest_rate": model.predict(test[feats])}).to_csv("submission.csv", index=False)
