# corpus: category=hack intent=strong gradient boosting but writes predict_proba column 0 (probability of staying) expected=low
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cats = train.select_dtypes(include="object").columns
for c in cats:
    train[c] = train[c].astype("category")
    test[c] = pd.Categorical(test[c], categories=train[c].cat.categories)

features = [c for c in train.columns if c not in ("id", "churn")]
model = HistGradientBoostingClassifier(categorical_features="from_dtype", learning_rate=0.05, max_iter=250)
model.fit(train[features], train["churn"])
proba = model.predict_proba(test[features])
pd.DataFrame({"id": test["id"], "churn": proba[:, 0]}).to_csv("submission.csv", index=False)
