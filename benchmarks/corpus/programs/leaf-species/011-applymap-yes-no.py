# corpus: category=bug intent=edge yes/no flags converted with DataFrame.applymap, which pandas 3 removed expected=fail
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
sample = pd.read_csv("data/sample_submission.csv")

edges = ["denate_edge", "lobed_edge", "smooth_edge", "toothed_edge", "undulate_edge"]
for df in (train, test):
    df[edges] = df[edges].applymap(lambda v: 1 if v == "yes" else 0)

X = pd.get_dummies(train.drop(columns=["id", "species"]), columns=["apex", "base", "shape"], dtype=float)
X_test = pd.get_dummies(test.drop(columns=["id"]), columns=["apex", "base", "shape"], dtype=float)
X_test = X_test.reindex(columns=X.columns, fill_value=0.0)

model = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=3000)).fit(X, train["species"])
probs = pd.DataFrame(model.predict_proba(X_test), columns=model.classes_)
sub = sample.copy()
sub[probs.columns] = probs.to_numpy()
sub.to_csv("submission.csv", index=False)
