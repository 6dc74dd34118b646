# corpus: category=bug intent=writes hard 0/1 predictions from predict() for an AUC metric expected=low
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
for df in [train, test]:
    df["total_charges"] = df["total_charges"].fillna(0)

full = pd.get_dummies(pd.concat([train, test]), dtype=int)
X = full[full["churn"].notna()].drop(columns=["id", "churn"])
Xt = full[full["churn"].isna()].drop(columns=["id", "churn"])

model = RandomForestClassifier(n_estimators=200, random_state=42)
model.fit(X, train["churn"])
test["churn"] = model.predict(Xt)
test[["id", "churn"]].to_csv("submission.csv", index=False)
print(test["churn"].value_counts())
