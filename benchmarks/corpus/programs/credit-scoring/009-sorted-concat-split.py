# corpus: category=bug intent=concatenates train and test, sorts by id, then splits back by position so test rows land in the training slice expected=fail
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
n_train = len(train)

data = pd.concat([train, test], ignore_index=True)
data = data.sort_values("id").reset_index(drop=True)
data = pd.get_dummies(data, columns=["Home", "Marital", "Records", "Job"])

trn = data.iloc[:n_train]
tst = data.iloc[n_train:]
features = [c for c in data.columns if c not in ("id", "Status")]

model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=0)
model.fit(trn[features], trn["Status"])

pd.DataFrame({"id": tst["id"], "Status": model.predict_proba(tst[features])[:, 1]}).to_csv("submission.csv", index=False)
