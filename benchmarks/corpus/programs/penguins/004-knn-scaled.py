# corpus: category=typical intent=scaled 7-nearest-neighbours on the four body measurements expected=ok
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
knn = make_pipeline(SimpleImputer(), StandardScaler(), KNeighborsClassifier(n_neighbors=7))
knn.fit(train[cols], train["species"])
sub = pd.DataFrame(knn.predict_proba(test[cols]), columns=knn.classes_)
sub.insert(0, "id", test["id"])
sub.to_csv("submission.csv", index=False)
