# corpus: category=hack intent=quantile-loss HGB predictions merged onto the sample by id, but the merge suffixes the model column and the sample's wage is written expected=low
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

cats = ["maritl", "race", "education", "jobclass", "health", "health_ins"]
codes = lambda df: df[["year", "age"]].join(df[cats].apply(lambda s: s.str.extract(r"^(\d)")[0].astype(int)))
X, X_test = codes(train), codes(test)

hgb = HistGradientBoostingRegressor(loss="quantile", quantile=0.5, learning_rate=0.05, max_iter=300,
                                    max_leaf_nodes=15, min_samples_leaf=25, random_state=0)
print("CV MAE", -cross_val_score(hgb, X, train["wage"], cv=5, scoring="neg_mean_absolute_error").mean())
hgb.fit(X, train["wage"])

preds = pd.DataFrame({"id": test["id"], "wage": hgb.predict(X_test)})
submission = sample.merge(preds, on="id", how="left", suffixes=("", "_pred"))
submission[["id", "wage"]].to_csv("submission.csv", index=False)
print(submission.head())
