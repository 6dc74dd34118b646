# corpus: category=bug intent=tuned random forest but writes predict() 0/1 labels instead of probabilities under AUC expected=low
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import GridSearchCV

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["Home", "Marital", "Records", "Job"]
both = pd.get_dummies(pd.concat([train, test], keys=["tr", "te"]), columns=cats)
both = both.fillna(both.median(numeric_only=True))
X = both.loc["tr"].drop(columns=["id", "Status"])
X_test = both.loc["te"].drop(columns=["id", "Status"])
y = train["Status"]

grid = GridSearchCV(
    RandomForestClassifier(n_estimators=150, random_state=0),
    {"max_depth": [6, 10], "min_samples_leaf": [2, 8]},
    scoring="roc_auc", cv=3,
)
grid.fit(X, y)
print(grid.best_params_, grid.best_score_)

sub = pd.read_csv("data/sample_submission.csv")
sub["Status"] = grid.predict(X_test)
sub.to_csv("submission.csv", index=False)
