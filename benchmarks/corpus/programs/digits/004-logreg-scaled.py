# corpus: category=typical intent=standard-scaled logistic regression with a hold-out accuracy print expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

features = [c for c in train.columns if c not in ["id", "target"]]
X_tr, X_va, y_tr, y_va = train_test_split(train[features], train["target"], test_size=0.2, random_state=0, stratify=train["target"])

model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
model.fit(X_tr, y_tr)
print("holdout accuracy:", model.score(X_va, y_va))

model.fit(train[features], train["target"])
pd.DataFrame({"id": test["id"], "target": model.predict(test[features])}).to_csv("submission.csv", index=False)
