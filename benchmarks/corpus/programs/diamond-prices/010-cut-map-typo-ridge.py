# corpus: category=bug intent=ordinal map spells "Very good" so that grade becomes NaN, then Ridge refuses the NaN input expected=fail
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cut_map = {"Fair": 0, "Good": 1, "Very good": 2, "Premium": 3, "Ideal": 4}
color_map = {c: i for i, c in enumerate("JIHGFED")}
clarity_map = {c: i for i, c in enumerate(["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"])}


def encode(df):
    return pd.DataFrame({
        "lcarat": np.log(df["carat"]),
        "cut": df["cut"].map(cut_map),
        "color": df["color"].map(color_map),
        "clarity": df["clarity"].map(clarity_map),
        "depth": df["depth"],
        "table": df["table"],
    })


model = make_pipeline(PolynomialFeatures(2), StandardScaler(), Ridge(alpha=1.0))
model.fit(encode(train), np.log(train["price"]))
pred = np.exp(model.predict(encode(test)))
pd.DataFrame({"id": test["id"], "price": pred}).to_csv("submission.csv", index=False)
