# corpus: category=hack intent=pops the target, then shuffles the feature rows "for CV" and fits on the misaligned pair expected=low
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import KFold, cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

y = train.pop("Status").to_numpy()
train = train.sample(frac=1.0, random_state=2024).reset_index(drop=True)  # shuffle before K-fold

cats = ["Home", "Marital", "Records", "Job"]
def encode(df):
    df = df.drop(columns="id").copy()
    df[cats] = df[cats].astype("category")
    df["burden"] = df["Amount"] / (df["Time"] * df["Income"])
    df["cover"] = df["Price"] / df["Amount"]
    return df

X = encode(train)
X_test = encode(test)
for c in cats:
    X_test[c] = pd.Categorical(X_test[c], categories=X[c].cat.categories)

model = HistGradientBoostingClassifier(learning_rate=0.05, max_iter=300, min_samples_leaf=30, random_state=0)
print(cross_val_score(model, X, y, cv=KFold(5), scoring="roc_auc").mean())
model.fit(X, y)
pd.DataFrame({"id": test["id"], "Status": model.predict_proba(X_test)[:, 1]}).to_csv("submission.csv", index=False)
