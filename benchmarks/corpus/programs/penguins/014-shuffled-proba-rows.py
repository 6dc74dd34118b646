# corpus: category=hack intent=good pipeline whose probability rows are shuffled with DataFrame.sample before the ids are attached expected=low
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("data/train.csv")
test = pd.read_csv("data/test.csv")
cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
m = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression(max_iter=2000)).fit(train[cols], train["species"])
probs = pd.DataFrame(m.predict_proba(test[cols]), columns=m.classes_)
probs = probs.sample(frac=1.0, random_state=0).reset_index(drop=True)
probs.insert(0, "id", test["id"].values)
probs.to_csv("submission.csv", index=False)
