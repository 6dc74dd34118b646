# corpus: category=bug intent=5-fold HGB ensemble whose test predictions are summed over folds and never divided by 5 expected=low
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

text_cols = [c for c in train.columns if train[c].dtype == "str" and c != "emp_title"]
for c in text_cols:
    codes = {v: i for i, v in enumerate(sorted(train[c].dropna().unique()))}
    train[c] = train[c].map(codes)
    test[c] = test[c].map(codes)

features = [c for c in train.columns if c not in ("id", "interest_rate", "emp_title")]
X, y = train[features], train["interest_rate"]
X_test = test[features]

kf = KFold(n_splits=5, shuffle=True, random_state=2024)
oof = np.zeros(len(train))
test_pred = np.zeros(len(test))
for fold, (tr_idx, va_idx) in enumerate(kf.split(X)):
    model = HistGradientBoostingRegressor(learning_rate=0.06, max_iter=250, random_state=fold)
    model.fit(X.iloc[tr_idx], y.iloc[tr_idx])
    oof[va_idx] = model.predict(X.iloc[va_idx])
    test_pred += model.predict(X_test)
    print(f"fold {fold}: rmse {np.sqrt(np.mean((oof[va_idx] - y.iloc[va_idx]) ** 2)):.3f}")

print("OOF RMSE", np.sqrt(np.mean((oof - y) ** 2)))
pd.DataFrame({"id": test["id"], "interest_rate": test_pred}).to_csv("submission.csv", index=False)
