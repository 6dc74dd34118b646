# corpus: category=unusual intent=logistic model inside a small class, features built with DataFrame.pipe, probabilities as a dict over classes_, main() guard expected=ok
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

DESCRIPTORS = ("apex", "base", "shape", "denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge")


def flags(df):
    return pd.get_dummies(df, columns=list(DESCRIPTORS), dtype=float)


def log_sizes(df):
    out = df.copy()
    for c in ("area", "perimeter", "diameter", "physiological_length", "physiological_width", "equivalent_diameter"):
        out[c] = np.log1p(out[c].clip(lower=0))
    return out


class LeafModel:
    def __init__(self, C=0.5):
        self.scaler = StandardScaler()
        self.clf = LogisticRegression(C=C, max_iter=4000)

    def fit(self, X, y):
        self.columns = list(X.columns)
        self.clf.fit(self.scaler.fit_transform(X), y)
        return self

    def proba_frame(self, X):
        P = self.clf.predict_proba(self.scaler.transform(X.reindex(columns=self.columns, fill_value=0.0)))
        return pd.DataFrame({cls: P[:, j] for j, cls in enumerate(self.clf.classes_)}, index=X.index)


def main():
    data = Path("data")
    train = pd.read_csv(data / "train.csv")
    test = pd.read_csv(data / "test.csv")
    sample = pd.read_csv(data / "sample_submission.csv")

    X = train.drop(columns=["id", "species"]).pipe(log_sizes).pipe(flags)
    X_test = test.drop(columns=["id"]).pipe(log_sizes).pipe(flags)

    probs = LeafModel(C=0.5).fit(X, train["species"]).proba_frame(X_test)
    sub = probs.reindex(columns=sample.columns[1:], fill_value=1e-4)
    sub.insert(0, "id", test["id"].to_numpy())
    sub.to_csv(Path("submission.csv"), index=False)


if __name__ == "__main__":
    main()
