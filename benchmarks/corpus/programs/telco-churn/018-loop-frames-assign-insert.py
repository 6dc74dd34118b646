# corpus: category=unusual intent=for-loop over [train, test] feature creation, .assign, sub.insert(0, "id", ...) expected=ok
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

for df in [train, test]:
    df["total_charges"] = df["total_charges"].fillna(df["monthly_charges"] * df["tenure"])
    df["month_to_month"] = (df["contract"] == "Month-to-month").astype(int)
    df["fiber"] = (df["internet_service"] == "Fiber optic").astype(int)
    df["echeck"] = (df["payment_method"].str.contains("Electronic")).astype(int)

str_cols = [c for c in test.columns if not pd.api.types.is_numeric_dtype(test[c])]
codes = {c: {v: i for i, v in enumerate(sorted(train[c].dropna().unique()))} for c in str_cols}
train = train.assign(**{c: train[c].map(codes[c]) for c in str_cols})
test = test.assign(**{c: test[c].map(codes[c]) for c in str_cols})

feats = [c for c in test.columns if c != "id"]
clf = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.06, min_samples_leaf=30)
clf.fit(train[feats], train["churn"])

sub = pd.DataFrame({"churn": clf.predict_proba(test[feats])[:, 1]})
sub.insert(0, "id", test["id"].values)
sub.to_csv("submission.csv", index=False)
