# corpus: category=bug intent=class-weighted logistic regression but predict() hard labels are submitted for an AUC metric expected=low
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

X = train[["balance", "income"]].assign(student=(train["student"] == "Yes").astype(int))
X_test = test[["balance", "income"]].assign(student=(test["student"] == "Yes").astype(int))
y = train["default"]

# only ~3% positives -> reweight the classes so the minority is not ignored
model = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced", max_iter=1000))
model.fit(X, y)
print(classification_report(y, model.predict(X)))

pd.DataFrame({"id": test["id"], "default": model.predict(X_test)}).to_csv("submission.csv", index=False)
