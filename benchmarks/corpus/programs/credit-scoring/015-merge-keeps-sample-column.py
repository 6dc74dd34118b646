# corpus: category=hack intent=tuned pipeline whose predictions are merged onto the sample and then the sample's Status_x column is kept expected=low
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RandomizedSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

cats = ["Home", "Marital", "Records", "Job"]
nums = [c for c in test.columns if c not in cats + ["id"]]

pipe = Pipeline([
    ("prep", ColumnTransformer([
        ("cat", Pipeline([("imp", SimpleImputer(strategy="constant", fill_value="na")),
                          ("oh", OneHotEncoder(handle_unknown="ignore", sparse_output=False))]), cats),
        ("num", "passthrough", nums),
    ])),
    ("gb", HistGradientBoostingClassifier(random_state=0)),
])
search = RandomizedSearchCV(
    pipe,
    {"gb__learning_rate": [0.03, 0.05, 0.1], "gb__max_leaf_nodes": [8, 15, 31], "gb__min_samples_leaf": [20, 40]},
    n_iter=5, cv=3, scoring="roc_auc", random_state=0,
)
search.fit(train[cats + nums], train["Status"])
print(search.best_params_, round(search.best_score_, 4))

pred = pd.DataFrame({"id": test["id"], "Status": search.predict_proba(test[cats + nums])[:, 1]})
sub = sample.merge(pred, on="id", how="left")
sub = sub.rename(columns={"Status_x": "Status"}).drop(columns=["Status_y"])
sub.to_csv("submission.csv", index=False)
