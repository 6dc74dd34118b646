# corpus: category=unusual intent=estimator wrapped in a small class with .assign feature chain, pathlib IO and a main() guard expected=ok
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor


class LogPriceModel:
    grades = {
        "cut": ("Fair", "Good", "Very Good", "Premium", "Ideal"),
        "color": tuple("JIHGFED"),
        "clarity": ("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"),
    }

    def __init__(self, **params):
        self.model = HistGradientBoostingRegressor(**params)

    def _frame(self, df):
        return (
            df.assign(**{c: df[c].map({g: i for i, g in enumerate(lv)}) for c, lv in self.grades.items()})
              .assign(lcarat=lambda d: np.log(d["carat"]),
                      vol=lambda d: d["x"] * d["y"] * d["z"],
                      spread=lambda d: d["depth"] - 2 * d["z"] / (d["x"] + d["y"]).replace(0, np.nan) * 100)
              .drop(columns=["id", "price"], errors="ignore")
        )

    def fit(self, df):
        self.model.fit(self._frame(df), np.log1p(df["price"]))
        return self

    def __call__(self, df):
        return np.expm1(self.model.predict(self._frame(df)))


def main(root=Path(".")):
    train = pd.read_csv(root / "data" / "train.csv")
    test = pd.read_csv(root / "data" / "test.csv")
    est = LogPriceModel(learning_rate=0.05, max_iter=450, min_samples_leaf=12, random_state=7).fit(train)
    sub = pd.DataFrame({"price": est(test)}, index=pd.Index(test["id"], name="id"))
    sub.to_csv(root / "submission.csv")


if __name__ == "__main__":
    main()
