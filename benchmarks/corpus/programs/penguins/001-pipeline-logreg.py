# corpus: category=strong intent=imputation plus one-hot plus scaled multinomial logistic regression pipeline expected=ok
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
num = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "year"]
cat = ["island", "sex"]
pre = ColumnTransformer([
    ("num", Pipeline([("imp", SimpleImputer(strategy="median")), ("sc", StandardScaler())]), num),
    ("cat", Pipeline([("imp", SimpleImputer(strategy="most_frequent")), ("oh", OneHotEncoder(handle_unknown="ignore"))]), cat),
])
clf = Pipeline([("pre", pre), ("lr", LogisticRegression(C=2.0, max_iter=5000))])
print("CV log loss", -cross_val_score(clf, train[num + cat], train["species"], cv=5, scoring="neg_log_loss").mean())
clf.fit(train[num + cat], train["species"])
proba = clf.predict_proba(test[num + cat])
sub = pd.DataFrame(proba, columns=clf.classes_)
sub.insert(0, "id", test["id"])
sub[["id", "Adelie", "Chinstrap", "Gentoo"]].to_csv("submission.csv", index=False)
