# corpus: category=unusual intent=for df in [train, test] with a per-column dtype check for imputation, LR pipeline, sub.insert expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    for c in ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "sex", "island"]:
        if pd.api.types.is_numeric_dtype(df[c]):
            df[c] = df[c].fillna(train[c].median())
        else:
            df[c] = df[c].fillna("unknown")
    df["is_male"] = (df["sex"] == "male").astype(int)
    df["dream"] = (df["island"] == "Dream").astype(int)
    df["biscoe"] = (df["island"] == "Biscoe").astype(int)

feats = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "is_male", "dream", "biscoe"]
clf = make_pipeline(StandardScaler(), LogisticRegression(C=5.0, max_iter=5000)).fit(train[feats], train["species"])
sub = pd.DataFrame(clf.predict_proba(test[feats]), columns=clf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
