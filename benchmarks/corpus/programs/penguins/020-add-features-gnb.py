# corpus: category=unusual intent=in-place add_features(df) helper with bill ratio, calibrated Gaussian naive Bayes expected=ok
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.naive_bayes import GaussianNB


def add_features(df, fill):
    for c, v in fill.items():
        df[c] = df[c].fillna(v)
    df["bill_ratio"] = df["bill_length_mm"] / df["bill_depth_mm"]
    df["mass_per_flipper"] = df["body_mass_g"] / df["flipper_length_mm"]
    df["torgersen"] = (df["island"] == "Torgersen").astype(float)
    df["biscoe"] = (df["island"] == "Biscoe").astype(float)


train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
fill = train[["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]].median().to_dict()
add_features(train, fill)
add_features(test, fill)
feats = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "bill_ratio", "mass_per_flipper", "torgersen", "biscoe"]
nb = CalibratedClassifierCV(GaussianNB(), cv=5).fit(train[feats], train["species"])
sub = pd.DataFrame(nb.predict_proba(test[feats]), columns=nb.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
