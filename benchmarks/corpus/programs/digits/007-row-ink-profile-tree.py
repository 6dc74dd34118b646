# corpus: category=weak intent=shallow decision tree on 8 row-wise ink totals instead of the pixels expected=low
import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")


def row_ink(df):
    return pd.DataFrame({f"row{r}": df[[f"pixel_{r}_{c}" for c in range(8)]].sum(axis=1) for r in range(8)})


tree = DecisionTreeClassifier(max_depth=6, random_state=0).fit(row_ink(train), train["target"])
pd.DataFrame({"id": test["id"], "target": tree.predict(row_ink(test))}).to_csv("submission.csv", index=False)
