# corpus: category=bug intent=relabels Status as good/bad strings and takes predict_proba column 1 as "bad" although classes_ sort bad first expected=low
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

# readable labels for the reports
train["label"] = train["Status"].map({1: "bad", 0: "good"})
print(train["label"].value_counts())

cats = ["Home", "Marital", "Records", "Job"]
nums = ["Seniority", "Time", "Age", "Expenses", "Income", "Assets", "Debt", "Amount", "Price"]
prep = make_column_transformer(
    (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1, encoded_missing_value=-1), cats),
    ("passthrough", nums),
)
model = make_pipeline(prep, HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, random_state=0))
model.fit(train[cats + nums], train["label"])

p_bad = model.predict_proba(test[cats + nums])[:, 1]
pd.DataFrame({"id": test["id"], "Status": p_bad}).to_csv("submission.csv", index=False)
