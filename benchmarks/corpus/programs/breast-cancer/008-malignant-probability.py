# corpus: category=bug intent=writes predict_proba[:, 0], the malignant probability, although target 1 means benign expected=low
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "target"])
gb = GradientBoostingClassifier(n_estimators=200, max_depth=2, learning_rate=0.05, random_state=0).fit(X, train["target"])
# probability of cancer
p_cancer = gb.predict_proba(test[X.columns])[:, 0]
pd.DataFrame({"id": test["id"], "target": p_cancer}).to_csv("submission.csv", index=False)
