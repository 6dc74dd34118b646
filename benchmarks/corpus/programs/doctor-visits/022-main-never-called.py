# corpus: category=bug intent=everything in main() but the script never calls it expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor


def main():
    train = pd.read_csv("data/train.csv")
    test = pd.read_csv("data/test.csv")
    X = train.drop(columns=["id", "mdvis"])
    model = HistGradientBoostingRegressor(loss="absolute_error", max_iter=300, learning_rate=0.05)
    model.fit(X, train["mdvis"])
    pd.DataFrame({"id": test["id"], "mdvis": model.predict(test[X.columns])}).to_csv("submission.csv", index=False)
    print("saved submission.csv")
