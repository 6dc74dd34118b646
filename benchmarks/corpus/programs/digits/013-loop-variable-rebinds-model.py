# corpus: category=hack intent=model comparison loop whose loop variable (last = the dummy baseline) is what gets refit and used for the predictions expected=low
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
features = [c for c in train.columns if c.startswith("pixel_")]
X, y = train[features], train["target"]

candidates = {
    "svc": make_pipeline(StandardScaler(), SVC(C=10)),
    "knn": KNeighborsClassifier(n_neighbors=3),
    "rf": RandomForestClassifier(n_estimators=200, random_state=0),
    "baseline": DummyClassifier(strategy="most_frequent"),
}
scores = {}
for name, clf in candidates.items():
    scores[name] = cross_val_score(clf, X, y, cv=5).mean()
    print(f"{name:>8}: {scores[name]:.4f}")

best_name = max(scores, key=scores.get)
print("best:", best_name)
clf.fit(X, y)
pd.DataFrame({"id": test["id"], "target": clf.predict(test[features])}).to_csv("submission.csv", index=False)
