# corpus: category=unusual intent=calibrated forest, submission built with a dict over classes_, id set as index and written with to_csv() expected=ok
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import ExtraTreesClassifier

train = pd.read_csv("data/train.csv").set_index("id")
test = pd.read_csv("data/test.csv").set_index("id")
y = train.pop("mode")
clf = CalibratedClassifierCV(ExtraTreesClassifier(n_estimators=300, min_samples_leaf=3, random_state=0), cv=3)
clf.fit(train, y)
P = clf.predict_proba(test[train.columns])
pd.DataFrame({c: P[:, i] for i, c in enumerate(clf.classes_)}, index=test.index).to_csv("submission.csv")
