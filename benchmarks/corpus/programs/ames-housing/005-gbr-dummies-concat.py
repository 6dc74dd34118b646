# corpus: category=typical intent=GradientBoostingRegressor on get_dummies of train+test, raw target expected=ok
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
ntrain = train.shape[0]
y = train["Sale_Price"]

all_df = pd.concat([train.drop("Sale_Price", axis=1), test], axis=0)
all_df = pd.get_dummies(all_df, dummy_na=True)
train_x = all_df[:ntrain].drop("id", axis=1)
test_x = all_df[ntrain:].drop("id", axis=1)

gbr = GradientBoostingRegressor(n_estimators=300, learning_rate=0.05, max_depth=4, subsample=0.8, random_state=0)
gbr.fit(train_x, y)
preds = gbr.predict(test_x)
pd.DataFrame({"id": test["id"], "Sale_Price": preds}).to_csv("submission.csv", index=False)
