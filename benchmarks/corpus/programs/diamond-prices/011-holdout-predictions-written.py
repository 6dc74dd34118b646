# corpus: category=bug intent=validates on a hold-out split and then writes the hold-out predictions next to the test ids expected=fail
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_squared_log_error
from sklearn.model_selection import train_test_split

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")

cats = ["cut", "color", "clarity"]
for c in cats:
    levels = sorted(train[c].unique())
    train[c] = pd.Categorical(train[c], categories=levels)
    test[c] = pd.Categorical(test[c], categories=levels)

features = ["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"]
X_tr, X_val, y_tr, y_val = train_test_split(train[features], train["price"], test_size=0.2, random_state=42)

model = HistGradientBoostingRegressor(max_iter=400, learning_rate=0.05, categorical_features="from_dtype", random_state=0)
model.fit(X_tr, np.log1p(y_tr))
val_pred = np.expm1(model.predict(X_val))
print("validation RMSLE:", np.sqrt(mean_squared_log_error(y_val, val_pred)))

submission = pd.DataFrame({"id": test["id"], "price": val_pred})
submission.to_csv("submission.csv", index=False)
