# corpus: category=bug intent=writes the submission and then asserts a cross-validated accuracy of 100% expected=fail
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
model = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(max_iter=2000))
model.fit(train[cols], train["species"])
sub = pd.DataFrame(model.predict_proba(test[cols]), columns=model.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)

acc = cross_val_score(model, train[cols], train["species"], cv=5).mean()
print("cv accuracy", acc)
assert acc == 1.0, f"expected a perfect separation, got {acc}"
