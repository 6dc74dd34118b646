# corpus: category=typical intent=plain LogisticRegression on unscaled balance/income plus student dummy expected=ok
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

def prep(df):
    X = df[["balance", "income"]].copy()
    X["student_yes"] = df["student"].eq("Yes").astype(int)
    return X

model = LogisticRegression(max_iter=1000)
model.fit(prep(train), train["default"])
probs = model.predict_proba(prep(test))[:, 1]
pd.DataFrame({"id": test.id, "default": probs}).to_csv("submission.csv", index=False)
print("mean predicted default", probs.mean())
