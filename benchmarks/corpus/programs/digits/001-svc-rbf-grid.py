# corpus: category=strong intent=RBF SVC on raw ink counts with a small CV grid over C and gamma expected=ok
import pandas as pd
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

pixels = [c for c in train.columns if c.startswith("pixel_")]
X, y = train[pixels].to_numpy(), train["target"].to_numpy()

search = GridSearchCV(
    SVC(kernel="rbf"),
    {"C": [3, 10], "gamma": [0.0005, 0.001, 0.002]},
    cv=StratifiedKFold(4, shuffle=True, random_state=0),
    scoring="accuracy",
)
search.fit(X, y)
print(search.best_params_, round(search.best_score_, 4))

pd.DataFrame({"id": test["id"], "target": search.predict(test[pixels].to_numpy())}).to_csv("submission.csv", index=False)
