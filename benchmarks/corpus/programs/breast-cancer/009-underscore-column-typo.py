# corpus: category=bug intent=feature list uses snake_case names (mean_radius) but the columns contain spaces expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = ["mean_radius", "mean_texture", "mean_concave_points", "worst_radius", "worst_concave_points", "worst_texture"]
sc = StandardScaler().fit(train[features])
lr = LogisticRegression(max_iter=2000).fit(sc.transform(train[features]), train["target"])
pd.DataFrame({"id": test["id"], "target": lr.predict_proba(sc.transform(test[features]))[:, 1]}).to_csv("submission.csv", index=False)
