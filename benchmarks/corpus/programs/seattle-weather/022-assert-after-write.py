# corpus: category=bug intent=writes a good submission, then a sanity assert on cross-validated log loss fails and exits non-zero expected=fail
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["precipitation", "temp_max", "temp_min", "wind"]
rf = RandomForestClassifier(n_estimators=200, min_samples_leaf=5, random_state=0)
rf.fit(train[cols], train["weather"])
sub = pd.DataFrame(rf.predict_proba(test[cols]), columns=rf.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)

cv_ll = -cross_val_score(rf, train[cols], train["weather"], cv=5, scoring="neg_log_loss").mean()
print("cv log loss", cv_ll)
assert cv_ll < 0.3, "model worse than expected"
