# corpus: category=bug intent=GridSearchCV over several hundred gradient boosting configurations, over the 60 s budget expected=fail
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import GridSearchCV

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
X = train.drop(columns=["id", "mdvis"])
params = {
    "n_estimators": [100, 300, 600],
    "learning_rate": [0.01, 0.03, 0.1],
    "max_depth": [2, 3, 4, 5],
    "subsample": [0.6, 0.8, 1.0],
    "loss": ["absolute_error", "huber"],
}
gs = GridSearchCV(GradientBoostingRegressor(random_state=0), params, cv=5, scoring="neg_mean_absolute_error")
gs.fit(X, train["mdvis"])
print(gs.best_params_, gs.best_score_)
pd.DataFrame({"id": test["id"], "mdvis": gs.predict(test[X.columns])}).to_csv("submission.csv", index=False)
