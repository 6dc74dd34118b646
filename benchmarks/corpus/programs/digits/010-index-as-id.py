# corpus: category=bug intent=extra-trees predictions written with the DataFrame index (0..449) as the id expected=fail
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier

train = pd.read_csv("data/train.csv", index_col="id")
test = pd.read_csv("data/test.csv")

X = train.drop(columns="target")
et = ExtraTreesClassifier(n_estimators=400, random_state=0).fit(X, train["target"])

pred = et.predict(test[X.columns])
pd.DataFrame({"id": test.index, "target": pred}).to_csv("submission.csv", index=False)
