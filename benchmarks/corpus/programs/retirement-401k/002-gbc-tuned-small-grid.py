# corpus: category=strong intent=small GridSearchCV over GradientBoosting depth and rate, then predict labels expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import GridSearchCV

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "e401k"])
y = train["e401k"]
grid = GridSearchCV(GradientBoostingClassifier(n_estimators=150, subsample=0.8, random_state=0),
                    {"max_depth": [2, 3], "learning_rate": [0.05, 0.1]}, cv=3, scoring="accuracy")
grid.fit(X, y)
print(grid.best_params_, grid.best_score_)
pred = grid.best_estimator_.predict(test[X.columns])
pd.DataFrame({"id": test["id"], "e401k": pred}).to_csv("submission.csv", index=False)
