# corpus: category=typical intent=multinomial logistic regression with scaled numbers and one-hot month expected=ok
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
train["month"] = pd.to_datetime(train["date"]).dt.month
test["month"] = pd.to_datetime(test["date"]).dt.month

num = ["precipitation", "temp_max", "temp_min", "wind"]
pipe = Pipeline([
    ("prep", ColumnTransformer([("num", StandardScaler(), num), ("month", OneHotEncoder(handle_unknown="ignore"), ["month"])])),
    ("clf", LogisticRegression(max_iter=2000)),
])
pipe.fit(train[num + ["month"]], train["weather"])
proba = pipe.predict_proba(test[num + ["month"]])
sub = pd.DataFrame({"id": test["id"]})
for i, cls in enumerate(pipe.classes_):
    sub[cls] = proba[:, i]
sub.to_csv("submission.csv", index=False)
