# corpus: category=weak intent=predicts the training mean strength for every sample expected=low
import pandas as pd

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
test["compressive_strength"] = train["compressive_strength"].mean()
test[["id", "compressive_strength"]].to_csv("submission.csv", index=False)
